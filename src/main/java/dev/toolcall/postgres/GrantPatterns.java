package dev.toolcall.postgres;

import dev.toolcall.permission.ArgumentPattern;

/**
 * A session grant's argument pattern in the columns {@code arguments_match} (its kind) and {@code arguments} (its
 * value), so every pattern reads back exactly whatever its text. PostgreSQL text holds neither U+0000 nor a lone
 * surrogate, so the value is escaped: a backslash as {@code \\}, and U+0000 and every surrogate that is not half of
 * a pair as {@code \}{@code uXXXX}. Any other text is stored as it is, readable in the table.
 *
 * <p>A row written before {@code arguments_match} existed (the column is null) holds one ambiguous string, read with
 * {@link ArgumentPattern#fromLegacyForm}: never wider than it was written.
 */
final class GrantPatterns {
  private GrantPatterns() {}

  /** The {@code arguments} column for {@code pattern}: its value, escaped (empty for any arguments). */
  static String value(ArgumentPattern pattern) {
    String v = pattern.value();
    StringBuilder out = null;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < v.length() && Character.isLowSurrogate(v.charAt(i + 1));
      String escaped = c == '\\' ? "\\\\" : c == 0 || (Character.isSurrogate(c) && !pair)
          ? String.format("\\u%04x", (int) c) : null;
      if (escaped != null && out == null) {
        out = new StringBuilder(v.length() + 8).append(v, 0, i);
      }
      if (out != null) {
        if (escaped != null) {
          out.append(escaped);
        } else {
          out.append(c);
          if (pair) {
            out.append(v.charAt(++i));
          }
        }
      } else if (pair) {
        i++;
      }
    }
    return out == null ? v : out.toString();
  }

  /**
   * The pattern of a row.
   *
   * @throws IllegalArgumentException naming what is wrong, if the columns are not ones {@link #value} and the kind's
   *     wire name wrote
   */
  static ArgumentPattern read(String match, String stored) {
    if (match == null) {
      return ArgumentPattern.fromLegacyForm(stored);
    }
    ArgumentPattern.Kind kind = ArgumentPattern.Kind.fromWireName(match);
    if (kind == ArgumentPattern.Kind.ANY) {
      if (!stored.isEmpty()) {
        throw new IllegalArgumentException("a grant whose match is 'any' has empty arguments, was '" + stored + "'");
      }
      return ArgumentPattern.ANY;
    }
    StringBuilder out = new StringBuilder(stored.length());
    for (int i = 0; i < stored.length(); i++) {
      char c = stored.charAt(i);
      if (c != '\\') {
        out.append(c);
      } else if (i + 1 < stored.length() && stored.charAt(i + 1) == '\\') {
        out.append('\\');
        i++;
      } else if (i + 5 < stored.length() && stored.charAt(i + 1) == 'u') {
        out.append((char) Integer.parseInt(stored.substring(i + 2, i + 6), 16));
        i += 5;
      } else {
        throw new IllegalArgumentException("arguments '" + stored + "' hold a backslash at " + i
            + " that starts no escape (\\\\ or \\uXXXX)");
      }
    }
    return new ArgumentPattern(kind, out.toString());
  }
}
