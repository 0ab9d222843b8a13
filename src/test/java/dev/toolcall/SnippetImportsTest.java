package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of README.md and docs/*.md is a fragment a reader can paste: its {@code import} lines
 * come first, each names a class that exists (no wildcards) and is used, and every type of the library (the types of
 * docs/api.txt) and every common JDK type (a fixed list) its code names by its simple name is imported or declared by
 * the block itself. Comments and string literals do not count as code; a type written fully qualified, or after a
 * dot ({@code Decision.ApproveOnce}), needs no import of its own.
 */
class SnippetImportsTest {

  private static final Pattern FENCE_OPEN = Pattern.compile("^(\\s*)```java\\s*$");
  private static final Pattern FENCE_CLOSE = Pattern.compile("^\\s*```\\s*$");
  private static final Pattern IMPORT = Pattern.compile("^import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;\\s*$");
  private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");
  private static final Pattern README_BEGIN = Pattern.compile("(?m)^\\s*// README:begin(?: (\\S+))?\\s*$\n?");
  /** A capitalized word not written after a dot, a '$' or inside another word: a simple type name. */
  private static final Pattern SIMPLE_NAME = Pattern.compile("(?<![\\w.$])[A-Z]\\w*");

  /** JDK types a snippet commonly uses; each must be imported where the code names it. */
  private static final Set<String> JDK_TYPES = Set.of(
      "java.util.List", "java.util.Map", "java.util.Set", "java.util.Optional", "java.util.ArrayList",
      "java.util.HashMap", "java.util.LinkedHashMap", "java.util.HashSet", "java.util.Collection",
      "java.util.Collections", "java.util.Arrays", "java.util.Objects", "java.util.UUID", "java.util.Iterator",
      "java.util.function.Function", "java.util.function.Supplier", "java.util.function.Consumer",
      "java.util.function.Predicate", "java.util.function.BiFunction",
      "java.util.concurrent.CompletableFuture", "java.util.concurrent.CompletionStage",
      "java.util.concurrent.Executor", "java.util.concurrent.ExecutorService", "java.util.concurrent.Executors",
      "java.util.concurrent.TimeUnit", "java.util.concurrent.CopyOnWriteArrayList",
      "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.ExecutionException",
      "java.util.concurrent.TimeoutException", "java.util.concurrent.CountDownLatch",
      "java.util.concurrent.atomic.AtomicInteger", "java.util.concurrent.atomic.AtomicLong",
      "java.util.concurrent.atomic.AtomicBoolean", "java.util.concurrent.atomic.AtomicReference",
      "java.util.stream.Collectors", "java.util.stream.Stream",
      "java.time.Duration", "java.time.Instant", "java.time.Clock",
      "java.nio.file.Path", "java.nio.file.Paths", "java.nio.file.Files",
      "java.nio.charset.StandardCharsets", "java.io.IOException", "java.io.UncheckedIOException",
      "java.net.URI", "java.net.URL", "javax.sql.DataSource");

  @Test
  void everyJavaBlockOfTheReadmeAndTheDocsImportsWhatItUses() throws IOException {
    Map<String, Set<String>> known = knownTypes();
    List<String> problems = new ArrayList<>();
    List<Path> documents = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    int blocks = 0;
    for (Path document : documents) {
      Set<String> declaredAbove = new TreeSet<>();   // a class a document shows once, used by its later blocks
      for (Block block : javaBlocks(document)) {
        blocks++;
        for (String problem : problems(block.code(), known, declaredAbove)) {
          problems.add(document + ":" + block.line() + ": " + problem);
        }
      }
    }
    assertThat(blocks).as("java blocks found in README.md and docs/").isGreaterThan(30);
    assertThat(problems).as("java blocks that do not import what they use").isEmpty();
  }

  /**
   * A README block that a test runs (the code between the test source's {@code // README:begin} and
   * {@code // README:end} lines) imports what that source compiles against: each of its imports is one of the
   * source's, a class of the source's own package, or a name the source writes fully qualified.
   */
  @Test
  void theReadmeBlocksThatTestsRunImportWhatTheTestsCompileAgainst() throws IOException {
    List<Block> readme = javaBlocks(Path.of("README.md"));
    List<String> problems = new ArrayList<>();
    int matched = 0;
    List<Path> sources;
    try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
      sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    for (Path source : sources) {
      String text = Files.readString(source, StandardCharsets.UTF_8);
      Matcher begin = README_BEGIN.matcher(text);
      while (begin.find()) {
        String name = begin.group(1) == null ? "" : " " + begin.group(1);
        Matcher end = Pattern.compile("(?m)^\\s*// README:end" + Pattern.quote(name) + "\\s*$").matcher(text);
        assertThat(end.find(begin.end())).as("%s: README:end%s", source, name).isTrue();
        String snippet = dedent(text.substring(begin.end(), end.start()));
        List<Block> showing = readme.stream().filter(b -> b.code().contains(snippet)).toList();
        if (showing.isEmpty()) {
          continue;   // a README check of its own reports a snippet the README lacks
        }
        matched++;
        String pkg = text.lines().filter(l -> l.startsWith("package ")).findFirst()
            .map(l -> l.substring(8, l.indexOf(';'))).orElse("");
        for (String line : showing.get(0).code().lines().map(String::strip).toList()) {
          Matcher m = IMPORT.matcher(line);
          if (!m.matches()) {
            continue;
          }
          String imported = m.group(2);
          boolean samePackage = imported.startsWith(pkg + ".") && imported.indexOf('.', pkg.length() + 1) < 0;
          if (!text.contains(line + "\n") && !samePackage
              && !stripCommentsAndLiterals(text).replaceAll("(?m)^import .*$", "").contains(imported)) {
            problems.add("README.md:" + showing.get(0).line() + " (run by " + source + "): " + line
                + " is not what the test compiles against");
          }
        }
      }
    }
    assertThat(matched).as("README blocks run by tests").isGreaterThanOrEqualTo(10);
    assertThat(problems).isEmpty();
  }

  private static String dedent(String snippet) {
    int indent = snippet.lines().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    return snippet.lines().map(l -> l.length() >= indent ? l.substring(indent) : l.strip())
        .collect(Collectors.joining("\n")).strip();
  }

  /**
   * The check itself: it sees a missing import, a wildcard, a class that does not exist, a late import and an unused
   * one.
   */
  @Test
  void theCheckFindsWhatAReaderWouldTripOver() throws IOException {
    Map<String, Set<String>> known = knownTypes();
    assertThat(problems("""
        Tool t = Tool.of(definition, inv -> ToolResult.of("x"));
        List<String> names = List.of("a");""", known))
        .containsExactlyInAnyOrder("uses Tool (dev.toolcall.tool.Tool) without importing it",
            "uses ToolResult (dev.toolcall.ToolResult) without importing it",
            "uses List (java.util.List) without importing it");
    assertThat(problems("""
        import dev.toolcall.tool.*;
        import dev.toolcall.tool.NoSuchThing;
        import static dev.toolcall.ToolResult.nothing;
        ToolRegistry r = null;
        import java.util.List;""", known))
        .contains("imports List but its code does not use it", "wildcard import dev.toolcall.tool.*: import each class",
            "import dev.toolcall.tool.NoSuchThing: no such class on the class path",
            "import static dev.toolcall.ToolResult.nothing: no such static member",
            "import java.util.List; comes after code: imports go first");
    assertThat(problems("""
        import dev.toolcall.CallRecord.Step;
        import dev.toolcall.tool.Tool;
        import static java.util.Objects.requireNonNull;
        // a Duration in a comment, "a ToolResult" in a string
        record Local(Tool tool, Step step) {}
        Local l = new Local(requireNonNull(tool), step);
        ToolCallState s = dev.toolcall.ToolCallState.PENDING;
        @Bean String name = String.valueOf(TimeUnit.SECONDS) + MAX;""", known))
        .containsExactlyInAnyOrder("uses ToolCallState (dev.toolcall.ToolCallState) without importing it",
            "uses TimeUnit (java.util.concurrent.TimeUnit) without importing it",
            "uses Bean, which it neither imports nor declares");
  }

  /** What is wrong with one block's code, each as a sentence; empty when nothing is. */
  private static List<String> problems(String code, Map<String, Set<String>> known) {
    return problems(code, known, new TreeSet<>());
  }

  /**
   * As {@link #problems(String, Map)}, for a block after others of its document that declared {@code declaredAbove}
   * (to which this block's own declarations are added): besides the library's and the listed JDK types, any other
   * capitalized name (a framework's annotation, a type of the reader's own) must be imported, declared in the
   * document or be in java.lang; an all-capitals name (a constant) and a one-letter one (a type variable) are not
   * checked.
   */
  private static List<String> problems(String code, Map<String, Set<String>> known, Set<String> declaredAbove) {
    List<String> problems = new ArrayList<>();
    Set<String> imported = new TreeSet<>();
    boolean codeSeen = false;
    String stripped = stripCommentsAndLiterals(code);
    for (String line : stripped.lines().map(String::strip).toList()) {
      Matcher m = IMPORT.matcher(line);
      if (!m.matches()) {
        codeSeen |= !line.isEmpty();
        continue;
      }
      String name = m.group(2);
      boolean isStatic = m.group(1) != null;
      String shown = "import " + (isStatic ? "static " : "") + name + (m.group(3) != null ? ".*" : "");
      if (codeSeen) {
        problems.add(shown + "; comes after code: imports go first");
      }
      if (m.group(3) != null) {
        problems.add("wildcard " + shown + ": import each class");
      } else if (isStatic) {
        String owner = name.substring(0, name.lastIndexOf('.'));
        String member = name.substring(name.lastIndexOf('.') + 1);
        Class<?> type = load(owner);
        if (type == null) {
          problems.add(shown + ": no such class on the class path");
        } else if (!hasStaticMember(type, member)) {
          problems.add(shown + ": no such static member");
        }
      } else if (load(name) == null) {
        problems.add(shown + ": no such class on the class path");
      } else {
        imported.add(name.substring(name.lastIndexOf('.') + 1));
      }
    }
    String body = stripped.lines().filter(l -> !IMPORT.matcher(l.strip()).matches())
        .collect(Collectors.joining("\n"));
    Set<String> declared = new TreeSet<>();
    Matcher d = DECLARED.matcher(body);
    while (d.find()) {
      declared.add(d.group(1));
    }
    declared.addAll(declaredAbove);
    declaredAbove.addAll(declared);
    Set<String> used = new TreeSet<>();
    Matcher w = SIMPLE_NAME.matcher(body);
    while (w.find()) {
      used.add(w.group());
    }
    for (String name : imported) {
      if (!used.contains(name)) {
        problems.add("imports " + name + " but its code does not use it");
      }
    }
    for (String name : used) {
      Set<String> candidates = known.get(name);
      if (candidates != null && !imported.contains(name) && !declared.contains(name)) {
        problems.add("uses " + name + " (" + String.join(" or ", candidates) + ") without importing it");
      } else if (candidates == null && !imported.contains(name) && !declared.contains(name) && name.length() > 1
          && !name.equals(name.toUpperCase(Locale.ROOT)) && load("java.lang." + name) == null) {
        problems.add("uses " + name + ", which it neither imports nor declares");
      }
    }
    return problems;
  }

  /** Simple name to the fully qualified names it may stand for: the library's public types and {@link #JDK_TYPES}. */
  private static Map<String, Set<String>> knownTypes() throws IOException {
    Map<String, Set<String>> known = new TreeMap<>();
    for (String line : Files.readAllLines(Path.of("docs/api.txt"), StandardCharsets.UTF_8)) {
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(" ") || !line.contains(":")) {
        continue;
      }
      String type = line.substring(0, line.indexOf(':'));
      known.computeIfAbsent(type.substring(type.lastIndexOf('.') + 1), k -> new TreeSet<>()).add(type);
    }
    assertThat(known).as("types read from docs/api.txt").containsKeys("ToolCallRuntime", "Tool", "Decision");
    for (String type : JDK_TYPES) {
      known.computeIfAbsent(type.substring(type.lastIndexOf('.') + 1), k -> new TreeSet<>()).add(type);
    }
    return known;
  }

  /** The class a source-form name stands for ({@code a.b.Outer.Inner} is {@code a.b.Outer$Inner}), or null. */
  private static Class<?> load(String name) {
    ClassLoader loader = SnippetImportsTest.class.getClassLoader();
    String candidate = name;
    while (true) {
      try {
        return Class.forName(candidate, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        int dot = candidate.lastIndexOf('.');
        if (dot < 0) {
          return null;
        }
        candidate = candidate.substring(0, dot) + '$' + candidate.substring(dot + 1);
      }
    }
  }

  private static boolean hasStaticMember(Class<?> type, String member) {
    return Arrays.stream(type.getMethods()).map(Method::getName).anyMatch(member::equals)
        || Arrays.stream(type.getFields()).map(Field::getName).anyMatch(member::equals)
        || Arrays.stream(type.getClasses()).map(Class::getSimpleName).anyMatch(member::equals);
  }

  /** The code with comments, string literals (text blocks too) and char literals blanked; line breaks are kept. */
  static String stripCommentsAndLiterals(String code) {
    StringBuilder out = new StringBuilder(code.length());
    int i = 0;
    while (i < code.length()) {
      char c = code.charAt(i);
      if (code.startsWith("//", i)) {
        while (i < code.length() && code.charAt(i) != '\n') {
          i++;
        }
      } else if (code.startsWith("/*", i)) {
        int end = code.indexOf("*/", i + 2);
        end = end < 0 ? code.length() : end + 2;
        code.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
        i = end;
      } else if (code.startsWith("\"\"\"", i)) {
        int end = code.indexOf("\"\"\"", i + 3);
        end = end < 0 ? code.length() : end + 3;
        code.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
        out.append("\"\"");
        i = end;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < code.length() && code.charAt(j) != c && code.charAt(j) != '\n') {
          j += code.charAt(j) == '\\' ? 2 : 1;
        }
        out.append(c).append(c);
        i = Math.min(j + 1, code.length());
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private record Block(int line, String code) {}

  /** The {@code ```java} blocks of a Markdown file, each without the indentation of its opening fence. */
  private static List<Block> javaBlocks(Path document) throws IOException {
    List<String> lines = Files.readAllLines(document, StandardCharsets.UTF_8);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher open = FENCE_OPEN.matcher(lines.get(i));
      if (!open.matches()) {
        continue;
      }
      int indent = open.group(1).length();
      int start = i + 1;
      StringBuilder code = new StringBuilder();
      for (i = start; i < lines.size() && !FENCE_CLOSE.matcher(lines.get(i)).matches(); i++) {
        String line = lines.get(i);
        int cut = Math.min(indent, line.length() - line.stripLeading().length());
        code.append(line.substring(cut)).append('\n');
      }
      blocks.add(new Block(start, code.toString()));
    }
    return blocks;
  }
}
