package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents a reader gets (README.md, every file under docs/, the Markdown files under .github/) read on their
 * own: they name no internal issue, pull request or work item a reader cannot follow, and every relative link points
 * to a file that exists, and to a heading that exists when it names one.
 */
class DocsLinksTest {

  /** "issue 30", "issues 17 and 18", "issue-30", "issue30", "issue #5", "PR 12", "pull request 12". */
  private static final Pattern ISSUE = Pattern.compile(
      "(?i)\\bissues?[\\s_-]*#?\\d+|\\bpull[\\s-]+requests?\\s*#?\\d+|(?-i:\\bPRs?\\s*#?\\d+)");

  /**
   * A bare "#12" as GitHub writes a reference: at the start of a line or after a space or an opening bracket. A CI
   * build number in the demo's transcript ("build #142") is not one; Markdown anchors ("remote.md#1-...") are not
   * either (no space before the '#').
   */
  private static final Pattern HASH_REFERENCE = Pattern.compile("(?<![Bb]uild )(?<=^|[\\s(\\[])#\\d+\\b",
      Pattern.MULTILINE);

  /** [text](target) and ![alt](target), the target up to a space (a title follows) or the closing parenthesis. */
  private static final Pattern INLINE_LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^\\s)>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

  /** [label]: target, a reference definition on a line of its own. */
  private static final Pattern REFERENCE_LINK = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");

  private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");

  @Test
  void noDocumentNamesAnInternalIssue() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : readerFiles()) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      String[] lines = text.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        Matcher issue = ISSUE.matcher(lines[i]);
        if (issue.find()) {
          found.add(file + ":" + (i + 1) + ": '" + issue.group() + "' in: " + lines[i].strip());
        }
        if (isProse(file)) {
          Matcher hash = HASH_REFERENCE.matcher(lines[i]);
          if (hash.find()) {
            found.add(file + ":" + (i + 1) + ": '" + hash.group() + "' in: " + lines[i].strip());
          }
        }
      }
    }
    assertThat(found)
        .as("docs name internal issues a reader cannot follow; say what the text means instead")
        .isEmpty();
  }

  @Test
  void everyRelativeLinkPointsToAnExistingFileAndHeading() throws IOException {
    List<String> broken = new ArrayList<>();
    Map<Path, Set<String>> anchors = new HashMap<>();
    List<Path> markdown = readerFiles().stream().filter(DocsLinksTest::isMarkdown).collect(Collectors.toList());
    assertThat(markdown).as("the documents this test reads").contains(Path.of("README.md"),
        Path.of("docs", "performance.md"), Path.of("docs", "changelog.md"));
    for (Path file : markdown) {
      String prose = withoutCode(Files.readString(file, StandardCharsets.UTF_8));
      List<String> targets = new ArrayList<>();
      for (Pattern p : List.of(INLINE_LINK, REFERENCE_LINK)) {
        Matcher m = p.matcher(prose);
        while (m.find()) {
          targets.add(m.group(1));
        }
      }
      for (String target : targets) {
        if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
          continue; // https:, mailto: ...: not a file of this repository
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : file.resolveSibling(path).normalize();
        if (path.startsWith("/") || !Files.exists(resolved)) {
          broken.add(file + ": (" + target + ") names no file of the repository");
          continue;
        }
        if (anchor != null && !anchor.isEmpty() && isMarkdown(resolved)) {
          Set<String> known = anchors.computeIfAbsent(resolved, DocsLinksTest::headingAnchors);
          if (!known.contains(anchor)) {
            broken.add(file + ": (" + target + ") names no heading of " + resolved);
          }
        }
      }
    }
    assertThat(broken).as("broken relative links").isEmpty();
  }

  @Test
  void headingAnchorsAreGitHubs() {
    assertThat(slug("1. A turn that suspends")).isEqualTo("1-a-turn-that-suspends");
    assertThat(slug("The split of `CallRun` (JDK 17, medians)")).isEqualTo("the-split-of-callrun-jdk-17-medians");
    assertThat(slug("Whole path: A / B")).isEqualTo("whole-path-a--b");
    assertThat(HASH_REFERENCE.matcher("see #12 for it").find()).isTrue();
    assertThat(HASH_REFERENCE.matcher("- CI: build #142 failed").find()).isFalse();
    assertThat(HASH_REFERENCE.matcher("[x](remote.md#1-a-turn)").find()).isFalse();
    assertThat(ISSUE.matcher("the figures of issue30-session3").find()).isTrue();
    assertThat(ISSUE.matcher("Issues 17 and 18").find()).isTrue();
    assertThat(ISSUE.matcher("tokens.issue(sessionId)").find()).isFalse();
  }

  /** README.md, every text file under docs/, and the Markdown files under .github/. */
  private static List<Path> readerFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(Path.of("README.md"));
    for (Path root : List.of(Path.of("docs"), Path.of(".github"))) {
      if (!Files.isDirectory(root)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(root)) {
        walk.filter(Files::isRegularFile)
            .filter(p -> root.getFileName().toString().equals("docs") || isMarkdown(p))
            .filter(p -> !p.getFileName().toString().matches(".*\\.(png|jpg|jpeg|gif|ico)"))
            .sorted()
            .forEach(files::add);
      }
    }
    return files;
  }

  private static boolean isMarkdown(Path p) {
    return p.getFileName().toString().endsWith(".md");
  }

  /** Prose where "#12" can only be a reference; not SVG colours or code. */
  private static boolean isProse(Path p) {
    String name = p.getFileName().toString();
    return name.endsWith(".md") || name.endsWith(".txt");
  }

  /** The text with fenced code blocks and inline code spans blanked, so code is never read as a link or heading. */
  static String withoutCode(String markdown) {
    StringBuilder out = new StringBuilder();
    boolean fenced = false;
    for (String line : markdown.split("\n", -1)) {
      if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
        fenced = !fenced;
        out.append('\n');
        continue;
      }
      out.append(fenced ? "" : line.replaceAll("`[^`]*`", "``")).append('\n');
    }
    return out.toString();
  }

  /** The anchors GitHub gives the headings of a Markdown file (outside code blocks), with -1, -2 for repeats. */
  private static Set<String> headingAnchors(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    for (String line : text.split("\n", -1)) {
      if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
        fenced = !fenced;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (fenced || !m.matches()) {
        continue;
      }
      String base = slug(m.group(2));
      int n = seen.merge(base, 1, Integer::sum) - 1;
      anchors.add(n == 0 ? base : base + "-" + n);
    }
    return anchors;
  }

  /** GitHub's heading anchor: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
  static String slug(String heading) {
    String plain = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link in a heading keeps its text
    return plain.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replace(' ', '-');
  }
}
