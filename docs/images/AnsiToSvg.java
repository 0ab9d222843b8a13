import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a terminal capture with colour codes (for example {@code tmux capture-pane -p -e}) into an SVG picture:
 * one text line per terminal line, each run of text in its colour, bold or dim, placed by terminal column so wide
 * characters (emoji) keep the columns aligned. Understands the SGR codes a capture holds: reset, bold, dim, normal
 * intensity, the 16 basic colours, 256 colours ({@code 38;5;N}) and the default colour.
 *
 * <p>No dependency: run it with the JDK alone.
 * <pre>
 * java docs/images/AnsiToSvg.java capture.ansi docs/images/demo.svg [title]
 * </pre>
 * How the README's picture was made is in docs/images/README.md.
 */
public class AnsiToSvg {

  static final double CELL_W = 8.4;
  static final double LINE_H = 18;
  static final double PAD = 14;
  static final double BAR = 28;
  static final String BG = "#1d1f21";
  static final String FG = "#d0d0d0";

  record Run(int col, String text, String color, boolean bold, boolean dim) {}

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: java AnsiToSvg.java CAPTURE.ansi OUT.svg [title]");
      System.exit(2);
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8));
    while (!lines.isEmpty() && strip(lines.get(lines.size() - 1)).isBlank()) {
      lines.remove(lines.size() - 1);
    }
    String title = args.length > 2 ? args[2] : "";
    List<List<Run>> runs = new ArrayList<>();
    int cols = 0;
    for (String line : lines) {
      List<Run> r = parse(line);
      runs.add(r);
      for (Run x : r) {
        cols = Math.max(cols, x.col() + width(x.text()));
      }
    }
    double w = Math.ceil(PAD * 2 + cols * CELL_W);
    double h = Math.ceil(BAR + PAD * 2 + runs.size() * LINE_H);
    StringBuilder b = new StringBuilder();
    b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"").append(h)
        .append("\" viewBox=\"0 0 ").append(w).append(' ').append(h).append("\">\n");
    b.append("<title>").append(esc(title)).append("</title>\n");
    b.append("<rect width=\"100%\" height=\"100%\" rx=\"8\" fill=\"").append(BG).append("\"/>\n");
    for (int i = 0; i < 3; i++) {
      String[] c = {"#ff5f56", "#ffbd2e", "#27c93f"};
      b.append("<circle cx=\"").append(PAD + 6 + i * 20).append("\" cy=\"").append(BAR / 2 + 2)
          .append("\" r=\"6\" fill=\"").append(c[i]).append("\"/>\n");
    }
    b.append("<text x=\"").append(w / 2).append("\" y=\"").append(BAR / 2 + 6).append("\" fill=\"#8a8a8a\" "
        + "font-family=\"sans-serif\" font-size=\"12\" text-anchor=\"middle\">").append(esc(title))
        .append("</text>\n");
    b.append("<g font-family=\"'DejaVu Sans Mono','Menlo','Consolas',monospace\" font-size=\"14\" "
        + "xml:space=\"preserve\">\n");
    for (int i = 0; i < runs.size(); i++) {
      double y = BAR + PAD + (i + 1) * LINE_H - 5;
      for (Run r : runs.get(i)) {
        if (r.text().isBlank()) {
          continue;
        }
        // every wide character gets its own position, so the font's emoji width cannot shift the columns
        int col = r.col();
        StringBuilder narrow = new StringBuilder();
        int narrowCol = col;
        int[] cps = r.text().codePoints().toArray();
        for (int k = 0; k < cps.length; k++) {
          int cw = width(cps[k]);
          boolean vs16 = k + 1 < cps.length && cps[k + 1] == 0xfe0f;
          if (cw == 2 || vs16) {
            text(b, narrowCol, y, narrow.toString(), r);
            narrow.setLength(0);
            String ch = new String(Character.toChars(cps[k])) + (vs16 ? "\uFE0F" : "");
            text(b, col, y, ch, r);
            col += 2;
            narrowCol = col;
            if (vs16) {
              k++;
            }
          } else {
            narrow.appendCodePoint(cps[k]);
            col += cw;
          }
        }
        text(b, narrowCol, y, narrow.toString(), r);
      }
    }
    b.append("</g>\n</svg>\n");
    Files.writeString(Path.of(args[1]), b.toString(), StandardCharsets.UTF_8);
  }

  static void text(StringBuilder b, int col, double y, String s, Run r) {
    if (s.isEmpty()) {
      return;
    }
    b.append("<text x=\"").append(String.format("%.1f", PAD + col * CELL_W)).append("\" y=\"").append(y)
        .append("\" fill=\"").append(r.color()).append('"');
    if (r.bold()) {
      b.append(" font-weight=\"bold\"");
    }
    if (r.dim()) {
      b.append(" fill-opacity=\"0.6\"");
    }
    b.append('>').append(esc(s)).append("</text>\n");
  }

  /** The runs of one captured line. */
  static List<Run> parse(String line) {
    List<Run> out = new ArrayList<>();
    String color = FG;
    boolean bold = false;
    boolean dim = false;
    StringBuilder text = new StringBuilder();
    int col = 0;
    int start = 0;
    for (int i = 0; i < line.length(); ) {
      char c = line.charAt(i);
      if (c == 0x1b && i + 1 < line.length() && line.charAt(i + 1) == '[') {
        int j = i + 2;
        while (j < line.length() && (line.charAt(j) < 0x40 || line.charAt(j) > 0x7e)) {
          j++;
        }
        if (j < line.length() && line.charAt(j) == 'm') {
          if (text.length() > 0) {
            out.add(new Run(start, text.toString(), color, bold, dim));
            text.setLength(0);
          }
          String[] ps = line.substring(i + 2, j).split(";", -1);
          for (int k = 0; k < ps.length; k++) {
            int p = ps[k].isEmpty() ? 0 : Integer.parseInt(ps[k]);
            if (p == 0) {
              color = FG;
              bold = false;
              dim = false;
            } else if (p == 1) {
              bold = true;
            } else if (p == 2) {
              dim = true;
            } else if (p == 22) {
              bold = false;
              dim = false;
            } else if (p == 39) {
              color = FG;
            } else if (p >= 30 && p <= 37) {
              color = xterm(p - 30);
            } else if (p >= 90 && p <= 97) {
              color = xterm(p - 90 + 8);
            } else if (p == 38 && k + 2 < ps.length && ps[k + 1].equals("5")) {
              color = xterm(Integer.parseInt(ps[k + 2]));
              k += 2;
            } else if ((p == 48 || p == 38) && k + 1 < ps.length && ps[k + 1].equals("5")) {
              k += 2;
            }
          }
        }
        i = j + 1;
        start = col;
        continue;
      }
      int cp = line.codePointAt(i);
      if (text.length() == 0) {
        start = col;
      }
      text.appendCodePoint(cp);
      col += width(cp);
      if (cp == 0xfe0f) {
        col += 1; // the emoji presentation selector widens the character before it to two columns
      }
      i += Character.charCount(cp);
    }
    if (text.length() > 0) {
      out.add(new Run(start, text.toString(), color, bold, dim));
    }
    return out;
  }

  /** The xterm 256-colour palette. */
  static String xterm(int n) {
    String[] basic = {"#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
        "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"};
    if (n < 16) {
      return basic[n];
    }
    if (n < 232) {
      int i = n - 16;
      int[] lv = {0, 95, 135, 175, 215, 255};
      return String.format("#%02x%02x%02x", lv[i / 36], lv[(i / 6) % 6], lv[i % 6]);
    }
    int g = 8 + (n - 232) * 10;
    return String.format("#%02x%02x%02x", g, g, g);
  }

  /** Columns of a code point: 0 for selectors and combining marks, 2 for wide and emoji, else 1. */
  static int width(int cp) {
    if (cp == 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x300 && cp <= 0x36f)) {
      return 0;
    }
    if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x231a && cp <= 0x231b) || (cp >= 0x23e9 && cp <= 0x23fa)
        || cp == 0x2705 || cp == 0x274c || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3)
        || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0x1f000 && cp <= 0x1faff)) {
      return 2;
    }
    return 1;
  }

  static int width(String s) {
    int w = 0;
    int[] cps = s.codePoints().toArray();
    for (int cp : cps) {
      w += cp == 0xfe0f ? 1 : width(cp);
    }
    return w;
  }

  static String strip(String s) {
    return s.replaceAll("\u001b\\[[0-9;]*m", "");
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
