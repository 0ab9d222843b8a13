package dev.toolcall.permission;

/**
 * Tool name patterns of rules and edit-tool sets: an exact name, or a glob in which {@code *} stands for any run
 * (possibly empty) of the characters a tool name may hold ({@code A-Z a-z 0-9 _ -}). Every other character matches
 * only itself: no case folding, no Unicode normalisation, so a look-alike (a zero-width character, another case, a
 * full-width letter) never matches.
 */
final class ToolNamePattern {
  private ToolNamePattern() {}

  static String check(String pattern, String name) {
    if (pattern == null) {
      throw new NullPointerException(name + " must not be null");
    }
    if (pattern.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    if (pattern.indexOf('(') >= 0 || pattern.indexOf(')') >= 0) {
      throw new IllegalArgumentException(name + " '" + pattern + "' must not contain '(' or ')'");
    }
    return pattern;
  }

  static boolean matches(String pattern, String toolName) {
    if (pattern.indexOf('*') < 0) {
      return pattern.equals(toolName);
    }
    return glob(pattern, 0, toolName, 0);
  }

  private static boolean glob(String p, int pi, String s, int si) {
    while (pi < p.length()) {
      char c = p.charAt(pi);
      if (c == '*') {
        while (pi < p.length() && p.charAt(pi) == '*') {
          pi++;
        }
        if (pi == p.length()) {
          return allNameChars(s, si);
        }
        for (int k = si; k <= s.length(); k++) {
          if (glob(p, pi, s, k)) {
            return true;
          }
          if (k < s.length() && !isNameChar(s.charAt(k))) {
            return false;
          }
        }
        return false;
      }
      if (si >= s.length() || s.charAt(si) != c) {
        return false;
      }
      pi++;
      si++;
    }
    return si == s.length();
  }

  private static boolean allNameChars(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      if (!isNameChar(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  }
}
