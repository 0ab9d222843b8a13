package dev.toolcall.presentation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Text helpers shared by the view model and the renderer. Stateless. */
final class Text {

  private Text() {}

  /** 350ms, 1.2s, 12s, 1m 05s, 2h 03m. */
  static String formatDuration(Duration d) {
    long ms = Math.max(0, d.toMillis());
    if (ms < 1_000) {
      return ms + "ms";
    }
    if (ms < 10_000) {
      return (ms / 1000) + "." + (ms % 1000) / 100 + "s";
    }
    long s = ms / 1000;
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m " + pad2(s % 60) + "s";
    }
    return (s / 3600) + "h " + pad2((s % 3600) / 60) + "m";
  }

  private static String pad2(long v) {
    return v < 10 ? "0" + v : Long.toString(v);
  }

  /** {@code text} on one line (whitespace runs become one space), cut to {@code max} code points with "…". */
  static String preview(String text, int max) {
    StringBuilder b = new StringBuilder();
    boolean space = false;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.isWhitespace(cp) || Character.isISOControl(cp)) {
        space = b.length() > 0;
      } else {
        if (space) {
          b.append(' ');
          space = false;
        }
        b.appendCodePoint(cp);
      }
    }
    String one = b.toString();
    if (one.codePointCount(0, one.length()) <= max) {
      return one;
    }
    return one.substring(0, one.offsetByCodePoints(0, max - 1)) + "…";
  }

  /**
   * The lines of {@code text}: split at {@code \n} (a {@code \r\n} counts as one break), a lone {@code \r} restarts
   * its line (as a terminal's progress bar does), a final line break ends the last line rather than opening one.
   */
  static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= text.length(); i++) {
      if (i == text.length() || text.charAt(i) == '\n') {
        if (i == text.length() && start == i) {
          break;
        }
        String line = text.substring(start, i);
        if (line.endsWith("\r")) {
          line = line.substring(0, line.length() - 1);
        }
        int cr = line.lastIndexOf('\r');
        out.add(cr >= 0 ? line.substring(cr + 1) : line);
        start = i + 1;
      }
    }
    return out;
  }

  /**
   * Text safe to print on a terminal: ANSI escape sequences removed, tabs as spaces, every other control character
   * (C0, DEL, C1) and line break as a space. The result holds no ESC.
   */
  static String sanitize(String text) {
    StringBuilder b = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean control = c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0);
      if (!control) {
        if (b != null) {
          b.append(c);
        }
        continue;
      }
      if (b == null) {
        b = new StringBuilder(text.length()).append(text, 0, i);
      }
      if (c == 0x1b) {
        i = skipEscape(text, i);
      } else if (c == '\t') {
        b.append("  ");
      } else {
        b.append(' ');
      }
    }
    return b == null ? text : b.toString();
  }

  /** The index of the last char of the escape sequence starting at {@code i} (an ESC). */
  private static int skipEscape(String text, int i) {
    if (i + 1 >= text.length()) {
      return i;
    }
    char next = text.charAt(i + 1);
    if (next == '[') { // CSI: parameters and intermediates, then one final byte 0x40-0x7e
      int j = i + 2;
      while (j < text.length() && (text.charAt(j) < 0x40 || text.charAt(j) > 0x7e)) {
        j++;
      }
      return Math.min(j, text.length() - 1);
    }
    if (next == ']') { // OSC: until BEL or ESC \
      int j = i + 2;
      while (j < text.length()) {
        char c = text.charAt(j);
        if (c == 0x07) {
          return j;
        }
        if (c == 0x1b && j + 1 < text.length() && text.charAt(j + 1) == '\\') {
          return j + 1;
        }
        j++;
      }
      return text.length() - 1;
    }
    return i + 1; // a two-character escape
  }

  /**
   * The columns a terminal gives {@code cp}: 0 for combining marks, variation selectors and joiners, 2 for wide
   * (East Asian wide, emoji), else 1. Errs wide: a line cut too early is harmless, a wrapped one breaks repainting.
   */
  static int width(int cp) {
    if (cp == 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x300 && cp <= 0x36f)) {
      return 0;
    }
    if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x231a && cp <= 0x231b) || (cp >= 0x23e9 && cp <= 0x23fa)
        || (cp >= 0x25fd && cp <= 0x25fe) || (cp >= 0x2614 && cp <= 0x2615) || (cp >= 0x2648 && cp <= 0x2653)
        || cp == 0x267f || cp == 0x2693 || cp == 0x26a1 || (cp >= 0x26aa && cp <= 0x26ab)
        || (cp >= 0x26bd && cp <= 0x26be) || (cp >= 0x26c4 && cp <= 0x26c5) || cp == 0x26ce || cp == 0x26d4
        || cp == 0x26ea || (cp >= 0x26f2 && cp <= 0x26f5) || cp == 0x26fa || cp == 0x26fd || cp == 0x2705
        || (cp >= 0x270a && cp <= 0x270b) || cp == 0x2728 || cp == 0x274c || cp == 0x274e
        || (cp >= 0x2753 && cp <= 0x2755) || cp == 0x2757 || (cp >= 0x2795 && cp <= 0x2797) || cp == 0x27b0
        || cp == 0x27bf || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3)
        || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60)
        || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f000 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd)) {
      return 2;
    }
    return 1;
  }

  /** The columns {@code s} takes; a variation selector 16 widens the character before it to 2. */
  static int width(String s) {
    int w = 0;
    int prev = 0;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == 0xfe0f && prev == 1) {
        w += 1;
      }
      prev = width(cp);
      w += prev;
    }
    return w;
  }

  /** {@code s} cut to at most {@code columns} columns, ending in "…" when cut. */
  static String truncate(String s, int columns) {
    if (width(s) <= columns) {
      return s;
    }
    StringBuilder b = new StringBuilder();
    int w = 0;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      int end = i + Character.charCount(cp);
      int cw = width(cp);
      if (end < s.length() && s.charAt(end) == '\uFE0F') {
        end++;
        cw = Math.max(cw, 2);
      }
      if (w + cw > columns - 1) {
        break;
      }
      b.append(s, i, end);
      w += cw;
      i = end;
    }
    return b.append('…').toString();
  }
}
