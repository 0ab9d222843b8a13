package dev.toolcall.tool;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Finds registered tool names close to a name the model sent. Stateless.
 *
 * <p>Both names are first folded: Unicode NFKC (full-width letters become ASCII), invisible format characters
 * (zero-width space, joiners, BOM), control characters and whitespace removed, lower case. A candidate is suggested when its folded
 * form equals the folded input (a look-alike), is within a small Damerau-Levenshtein distance (optimal string
 * alignment: a typo, a swapped pair), has the same words in another order ({@code file_read}), or when one contains
 * the other ({@code functions.read_file}, {@code read}) or starts it ({@code sh} for {@code shell}). Closer kinds rank first, then registration order.
 */
final class NameSuggester {

  /** Inputs longer than this (after folding) are only checked for containment. */
  private static final int MAX_DISTANCE_INPUT = 128;

  private NameSuggester() {}

  /** Up to {@code max} of {@code candidates} close to {@code name}, best first. */
  static List<String> suggest(String name, List<String> candidates, int max) {
    if (name == null || name.isEmpty() || candidates.isEmpty()) {
      return List.of();
    }
    String input = fold(name.length() > 4 * MAX_DISTANCE_INPUT ? name.substring(0, 4 * MAX_DISTANCE_INPUT) : name);
    if (input.isEmpty()) {
      return List.of();
    }
    List<int[]> scored = new ArrayList<>();
    for (int i = 0; i < candidates.size(); i++) {
      int score = score(input, fold(candidates.get(i)));
      if (score >= 0) {
        scored.add(new int[] {score, i});
      }
    }
    scored.sort(Comparator.<int[]>comparingInt(s -> s[0]).thenComparingInt(s -> s[1]));
    List<String> out = new ArrayList<>(Math.min(max, scored.size()));
    for (int i = 0; i < scored.size() && i < max; i++) {
      out.add(candidates.get(scored.get(i)[1]));
    }
    return List.copyOf(out);
  }

  /** Whether {@code a} and {@code b} are the same name once folded (differing only in case, width, invisibles). */
  static boolean lookAlike(String a, String b) {
    return fold(a).equals(fold(b));
  }

  /** Lower is closer; -1 when not close at all. */
  private static int score(String input, String candidate) {
    if (input.equals(candidate)) {
      return 0;
    }
    if (input.length() <= MAX_DISTANCE_INPUT) {
      int limit = Math.max(1, Math.min(3, candidate.length() / 3));
      int distance = distance(input, candidate, limit);
      if (distance <= limit) {
        return distance;
      }
      if (sameWords(input, candidate)) {
        return 4;
      }
    }
    if (input.contains(candidate) || (input.length() >= 3 && candidate.contains(input))
        || (input.length() >= 2 && candidate.startsWith(input))) {
      return 5;
    }
    return -1;
  }

  static String fold(String name) {
    String n = Normalizer.normalize(name, Normalizer.Form.NFKC);
    StringBuilder out = new StringBuilder(n.length());
    for (int i = 0; i < n.length(); ) {
      int cp = n.codePointAt(i);
      i += Character.charCount(cp);
      int type = Character.getType(cp);
      if (type != Character.FORMAT && type != Character.CONTROL && !Character.isWhitespace(cp)
          && !Character.isSpaceChar(cp)) {
        out.appendCodePoint(cp);
      }
    }
    return out.toString().toLowerCase(Locale.ROOT);
  }

  private static boolean sameWords(String a, String b) {
    String[] x = a.split("[_\\-.]+");
    String[] y = b.split("[_\\-.]+");
    if (x.length < 2 || x.length != y.length) {
      return false;
    }
    Arrays.sort(x);
    Arrays.sort(y);
    return Arrays.equals(x, y);
  }

  /**
   * Optimal-string-alignment distance (insertions, deletions, substitutions, adjacent transpositions), or
   * {@code limit + 1} as soon as it must exceed {@code limit}.
   */
  static int distance(String a, String b, int limit) {
    if (Math.abs(a.length() - b.length()) > limit) {
      return limit + 1;
    }
    int[] previous2 = new int[b.length() + 1];
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      int rowMin = current[0];
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        int d = Math.min(Math.min(previous[j] + 1, current[j - 1] + 1), previous[j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d = Math.min(d, previous2[j - 2] + 1);
        }
        current[j] = d;
        rowMin = Math.min(rowMin, d);
      }
      if (rowMin > limit) {
        return limit + 1;
      }
      int[] t = previous2;
      previous2 = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
