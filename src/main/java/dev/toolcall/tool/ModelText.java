package dev.toolcall.tool;

/**
 * Helpers for text that is shown to the model (and to people in a UI): anything the model sent that is echoed back
 * is bounded in length and has its invisible or control characters spelled out as {@code \}{@code uXXXX}, so a
 * message can neither flood a context window nor smuggle terminal escapes, NULs or hidden characters.
 */
final class ModelText {

  private ModelText() {}

  /**
   * {@code text} with control, format (zero-width, bidi), private-use, unassigned and lone surrogate characters
   * written as {@code \}{@code uXXXX}, cut to about {@code max} characters with "..." when longer. Newlines are kept
   * only when {@code keepNewlines}.
   */
  static String visible(String text, int max, boolean keepNewlines) {
    StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 8);
    for (int i = 0; i < text.length(); i++) {
      if (out.length() >= max) {
        out.append("...");
        break;
      }
      char c = text.charAt(i);
      if (c == '\n' && keepNewlines) {
        out.append(c);
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, text.charAt(i + 1));
        if (shown(Character.getType(cp))) {
          out.append(c).append(text.charAt(i + 1));
        } else {
          escape(out, c);
          escape(out, text.charAt(i + 1));
        }
        i++;
      } else if (Character.isSurrogate(c) || !shown(Character.getType(c))) {
        escape(out, c);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static boolean shown(int type) {
    switch (type) {
      case Character.CONTROL:
      case Character.FORMAT:
      case Character.PRIVATE_USE:
      case Character.SURROGATE:
      case Character.UNASSIGNED:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
        return false;
      default:
        return true;
    }
  }

  private static void escape(StringBuilder out, char c) {
    out.append(String.format("\\u%04X", (int) c));
  }

  /** The 1-based line and column of {@code offset} in {@code text}; lines end at LF, CR LF or a lone CR. */
  static String position(String text, long offset) {
    int line = 1;
    int column = 1;
    int end = (int) Math.max(0, Math.min(offset, text.length()));
    for (int i = 0; i < end; i++) {
      char c = text.charAt(i);
      if (c == '\n' || (c == '\r' && (i + 1 >= text.length() || text.charAt(i + 1) != '\n'))) {
        line++;
        column = 1;
      } else if (c != '\r') {
        column++;
      }
    }
    return at(line, column);
  }

  /** "line L, column C". */
  static String at(int line, int column) {
    return "line " + line + ", column " + column;
  }

  /** {@code n} with thousands separators, for limits in messages. */
  static String count(long n) {
    return String.format(java.util.Locale.ROOT, "%,d", n);
  }
}
