package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
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
 * The packages of the main code form one direction of dependency: each package refers only to packages on floors
 * below its own, so their graph has no cycle and a reader can draw it bottom to top. Counted from the source: import
 * lines and fully qualified names in code (comments and string literals left out, so a javadoc link upward is not a
 * dependency). Also checks that the adapters on the top floor never refer to one another, and that the package
 * diagram in {@code docs/architecture.md} is the one the code has (regenerate with
 * {@code mvn test -Dtest=PackageGraphTest -Dtoolcall.docs.write=true}).
 */
class PackageGraphTest {

  private static final Path MAIN = Path.of("src/main/java");
  private static final String BASE = "dev.toolcall";
  private static final String BEGIN = "<!-- generated:package-diagram:begin -->";
  private static final String END = "<!-- generated:package-diagram:end -->";

  /**
   * The floors, bottom first (names relative to {@code dev.toolcall}; "" is the root package). A package may refer
   * to packages on lower floors only: never to one on its own floor, never up.
   */
  static final List<List<String>> FLOORS = List.of(
      List.of("fsm", "internal.json"),
      List.of(""),
      List.of("internal"),
      List.of("tool"),
      List.of("event"),
      List.of("permission", "execution"),
      List.of("runtime"),
      List.of("conversation", "presentation"),
      List.of("wire"),
      List.of("postgres", "otel", "micrometer", "langchain4j", "springai", "mcp", "agui", "acp", "a2a"));

  private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.toolcall((?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");
  private static final Pattern COMMENTS_AND_STRINGS = Pattern.compile(
      "/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'", Pattern.DOTALL);

  @Test
  void everyPackageRefersOnlyToFloorsBelowIt() throws IOException {
    Map<String, Integer> floor = floors();
    Map<String, Map<String, Set<String>>> graph = graph();
    List<String> wrong = new ArrayList<>();
    graph.forEach((from, tos) -> tos.forEach((to, files) -> {
      Integer a = floor.get(from);
      Integer b = floor.get(to);
      if (a == null || b == null) {
        wrong.add(name(a == null ? from : to) + " is on no floor: add it to PackageGraphTest.FLOORS");
      } else if (b >= a) {
        wrong.add(name(from) + " -> " + name(to) + (b > a ? " runs up" : " stays on its floor") + ", in " + files);
      }
    }));
    assertThat(wrong).as("package references against the floors").isEmpty();
  }

  @Test
  void thePackageGraphHasNoCycle() throws IOException {
    Map<String, Map<String, Set<String>>> graph = graph();
    assertThat(cycle(graph)).as("a cycle of packages").isEmpty();
  }

  @Test
  void theCheckSeesAnUpwardReferenceAndACycle() {
    Map<String, Map<String, Set<String>>> g = new TreeMap<>();
    g.computeIfAbsent(BASE, k -> new TreeMap<>()).put(BASE + ".event", Set.of("ToolCall"));
    g.computeIfAbsent(BASE + ".event", k -> new TreeMap<>()).put(BASE, Set.of("ToolCallEvent"));
    assertThat(cycle(g)).containsExactly(BASE, BASE + ".event", BASE);
    assertThat(references("package dev.toolcall;\n/** {@link dev.toolcall.event.EventBus} */\n"
        + "class A { String s = \"dev.toolcall.runtime.X\"; dev.toolcall.tool.Tool t; }"))
        .containsExactly(BASE + ".tool");
  }

  @Test
  void docsDiagramIsGeneratedFromTheCode() throws IOException {
    Path doc = Path.of("docs/architecture.md");
    String block = BEGIN + "\n" + diagram(graph()) + END;
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    assertThat(b).as("begin marker in %s", doc).isNotNegative();
    assertThat(e).as("end marker in %s", doc).isGreaterThan(b);
    String current = text.substring(b, e + END.length());
    if (Boolean.getBoolean("toolcall.docs.write") && !current.equals(block)) {
      Files.writeString(doc, text.substring(0, b) + block + text.substring(e + END.length()), StandardCharsets.UTF_8);
      return;
    }
    assertThat(current).as("docs/architecture.md is stale: rerun with -Dtoolcall.docs.write=true").isEqualTo(block);
  }

  /** The core packages as a Mermaid graph, bottom to top, then a table of what each adapter refers to. */
  static String diagram(Map<String, Map<String, Set<String>>> graph) {
    Set<String> adapters = Set.copyOf(FLOORS.get(FLOORS.size() - 1));
    StringBuilder out = new StringBuilder("```mermaid\nflowchart BT\n");
    for (List<String> f : FLOORS) {
      for (String p : f) {
        if (!adapters.contains(p)) {
          out.append("  ").append(id(p)).append("[\"").append(name(full(p))).append("\"]\n");
        }
      }
    }
    graph.forEach((from, tos) -> {
      if (!adapters.contains(rel(from))) {
        tos.keySet().forEach(to -> out.append("  ").append(id(rel(from))).append(" --> ").append(id(rel(to)))
            .append('\n'));
      }
    });
    out.append("```\n\n| adapter | refers to |\n|---|---|\n");
    for (String a : FLOORS.get(FLOORS.size() - 1)) {
      Set<String> tos = graph.getOrDefault(full(a), Map.of()).keySet();
      out.append("| `").append(name(full(a))).append("` | ")
          .append(tos.stream().map(t -> "`" + name(t) + "`").collect(Collectors.joining(", "))).append(" |\n");
    }
    return out.toString();
  }

  /** A cycle of the graph as the packages along it, first repeated at the end; empty when there is none. */
  static List<String> cycle(Map<String, Map<String, Set<String>>> graph) {
    Map<String, Integer> state = new HashMap<>(); // 1 on the path, 2 done
    for (String start : graph.keySet()) {
      Deque<String> path = new ArrayDeque<>();
      List<String> found = visit(start, graph, state, path);
      if (!found.isEmpty()) {
        return found;
      }
    }
    return List.of();
  }

  private static List<String> visit(String p, Map<String, Map<String, Set<String>>> graph,
      Map<String, Integer> state, Deque<String> path) {
    Integer s = state.get(p);
    if (s != null && s == 2) {
      return List.of();
    }
    if (s != null) {
      List<String> onPath = new ArrayList<>(path);
      List<String> out = new ArrayList<>(onPath.subList(onPath.indexOf(p), onPath.size()));
      out.add(p);
      return out;
    }
    state.put(p, 1);
    path.addLast(p);
    for (String to : graph.getOrDefault(p, Map.of()).keySet()) {
      List<String> found = visit(to, graph, state, path);
      if (!found.isEmpty()) {
        return found;
      }
    }
    path.removeLast();
    state.put(p, 2);
    return List.of();
  }

  /** Package -> package it refers to -> the files that do. */
  static Map<String, Map<String, Set<String>>> graph() throws IOException {
    Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> s = Files.walk(MAIN)) {
      files = s.filter(f -> f.toString().endsWith(".java")).sorted().collect(Collectors.toList());
    }
    for (Path f : files) {
      String text = Files.readString(f, StandardCharsets.UTF_8);
      Matcher m = PACKAGE.matcher(text);
      if (!m.find() || !m.group(1).startsWith(BASE)) {
        continue;
      }
      String from = m.group(1);
      graph.computeIfAbsent(from, k -> new TreeMap<>());
      for (String to : references(text)) {
        if (!to.equals(from)) {
          graph.get(from).computeIfAbsent(to, k -> new TreeSet<>()).add(f.getFileName().toString());
        }
      }
    }
    return graph;
  }

  /** The {@code dev.toolcall} packages a source file refers to in code. */
  static Set<String> references(String source) {
    String code = COMMENTS_AND_STRINGS.matcher(source).replaceAll(" ");
    Set<String> out = new TreeSet<>();
    Matcher m = REFERENCE.matcher(code);
    while (m.find()) {
      out.add(BASE + m.group(1));
    }
    out.remove(packageOf(code));
    return out;
  }

  private static String packageOf(String code) {
    Matcher m = PACKAGE.matcher(code);
    return m.find() ? m.group(1) : "";
  }

  private static Map<String, Integer> floors() {
    Map<String, Integer> out = new HashMap<>();
    for (int i = 0; i < FLOORS.size(); i++) {
      for (String p : FLOORS.get(i)) {
        out.put(full(p), i);
      }
    }
    return out;
  }

  private static String full(String rel) {
    return rel.isEmpty() ? BASE : BASE + "." + rel;
  }

  private static String rel(String full) {
    return full.equals(BASE) ? "" : full.substring(BASE.length() + 1);
  }

  private static String name(String full) {
    return full;
  }

  private static String id(String rel) {
    return rel.isEmpty() ? "root" : rel.replace('.', '_');
  }
}
