package dev.toolcall.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolRegistry;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's tool list as {@link McpToolSource} uses it: each server tool mapped to a {@link ToolDefinition} (or
 * left out, with a warning), and the runtime's registry reconciled with the tools of one source. Not thread-safe on
 * its own: every method but {@link #runtimeName} runs under the source's {@code applying} lock.
 */
final class ToolList {
  /** Logs under the source's name, as before the split. */
  private static final Logger log = LoggerFactory.getLogger(McpToolSource.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final McpToolSource source;
  private final String serverName;
  private final String prefix;
  private final boolean trustReadOnlyHints;
  private final BiConsumer<McpSchema.Tool, ToolDefinition.Builder> customize;
  /** Server tools left out for a reason that stays until the server changes them; guarded by applying. */
  private Map<String, McpSchema.Tool> rejected = Map.of();
  /** Names of this source's tools left out because the runtime has another tool of that name; guarded by applying. */
  private final java.util.Set<String> clashes = new java.util.HashSet<>();

  /** One server tool and the {@link Tool} made of it (kept while the server's description does not change). */
  record Entry(McpSchema.Tool spec, Tool tool) {}

  ToolList(McpToolSource source, String serverName, String prefix, boolean trustReadOnlyHints,
      BiConsumer<McpSchema.Tool, ToolDefinition.Builder> customize) {
    this.source = source;
    this.serverName = serverName;
    this.prefix = prefix;
    this.trustReadOnlyHints = trustReadOnlyHints;
    this.customize = customize;
  }

  /**
   * The entries for the server's list {@code specs}: an unchanged tool keeps its entry (and {@link Tool}); a new or
   * changed one is mapped and its schemas compiled. A tool the library cannot take (its name, a schema that is not
   * valid, a name another of the server's tools maps to as well) is left out, with a warning the first time it is
   * seen as it is. Called under {@code applying}.
   */
  LinkedHashMap<String, Entry> entries(List<McpSchema.Tool> specs, Map<String, Entry> before) {
    LinkedHashMap<String, Entry> next = new LinkedHashMap<>();
    Map<String, McpSchema.Tool> nowRejected = new LinkedHashMap<>();
    java.util.Set<String> names = new java.util.HashSet<>();
    List<Entry> fresh = new ArrayList<>();
    for (McpSchema.Tool spec : specs) {
      Entry old = before.get(spec.name());
      if (old != null && old.spec.equals(spec)) {
        next.put(spec.name(), old);
        names.add(old.tool.definition().name());
        continue;
      }
      if (next.containsKey(spec.name())) {
        reject(nowRejected, spec, "the server lists a tool of that name twice");
        continue;
      }
      try {
        Tool tool = source.tool(definition(spec), spec.name());
        if (!names.add(tool.definition().name())) {
          reject(nowRejected, spec, "another of the server's tools is named '" + tool.definition().name() + "' here");
          continue;
        }
        Entry e = new Entry(spec, tool);
        next.put(spec.name(), e);
        fresh.add(e);
      } catch (IllegalArgumentException e) { // a name the library cannot take
        reject(nowRejected, spec, e.getMessage());
      }
    }
    for (Map.Entry<Entry, String> invalid : invalidSchemas(fresh).entrySet()) {
      next.remove(invalid.getKey().spec.name());
      reject(nowRejected, invalid.getKey().spec, invalid.getValue());
    }
    rejected = nowRejected;
    return next;
  }

  /**
   * The entries among {@code fresh} whose schemas do not compile, with what is wrong (all are compiled at once, and
   * only when that fails one by one).
   */
  private static Map<Entry, String> invalidSchemas(List<Entry> fresh) {
    if (fresh.isEmpty()) {
      return Map.of();
    }
    try {
      ToolRegistry.of(fresh.stream().map(Entry::tool).toList());
      return Map.of();
    } catch (IllegalArgumentException some) {
      Map<Entry, String> invalid = new LinkedHashMap<>();
      for (Entry e : fresh) {
        String problem = schemaProblem(e.tool);
        if (problem != null) {
          invalid.put(e, problem);
        }
      }
      return invalid;
    }
  }

  /** What is wrong with {@code tool}'s schemas, or null when they compile. */
  private static String schemaProblem(Tool tool) {
    try {
      ToolRegistry.of(tool);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private void reject(Map<String, McpSchema.Tool> nowRejected, McpSchema.Tool spec, String why) {
    if (!spec.equals(rejected.get(spec.name())) && !spec.equals(nowRejected.get(spec.name()))) {
      log.warn("MCP server '{}': tool '{}' left out: {}", serverName, spec.name(), why);
    }
    nowRejected.putIfAbsent(spec.name(), spec);
  }

  /**
   * The runtime's registry {@code r} with this source's tools made {@code tools}: each added, or put in place of
   * this source's tool of that name; each of this source's tools no longer listed removed. A name another tool of
   * the runtime has is refused: {@code attaching}, by throwing (nothing changes); else the tool is left out with a
   * warning (once, until the clash ends). Tools of the runtime that are not this source's are never touched. Runs
   * inside {@link dev.toolcall.runtime.ToolCallRuntime#updateTools}, under {@code applying}.
   */
  ToolRegistry reconcile(ToolRegistry r, Map<String, Entry> tools, boolean attaching) {
    List<Tool> put = new ArrayList<>();
    java.util.Set<String> wanted = new java.util.HashSet<>();
    java.util.Set<String> clashing = new java.util.HashSet<>();
    for (Entry e : tools.values()) {
      String name = e.tool.definition().name();
      wanted.add(name);
      Tool there = r.contains(name) && r.canonicalName(name).equals(name) ? r.require(name) : null;
      if (there == e.tool) {
        continue;
      }
      if (there == null || isMine(there)) {
        put.add(e.tool);
      } else if (attaching) {
        throw new IllegalArgumentException("tool name '" + name + "' of MCP server '" + serverName
            + "' is taken in the runtime; give the source another prefix");
      } else {
        clashing.add(name);
        if (!clashes.contains(name)) {
          log.warn("MCP server '{}': tool '{}' left out: the name is taken in the runtime by {}; give the source"
              + " another prefix", serverName, name, there);
        }
      }
    }
    clashes.clear();
    clashes.addAll(clashing);
    List<String> remove = new ArrayList<>();
    for (Tool t : r.tools()) {
      if (isMine(t) && !wanted.contains(t.definition().name())) {
        remove.add(t.definition().name());
      }
    }
    return r.without(remove.toArray(String[]::new)).with(put.toArray(Tool[]::new));
  }

  private boolean isMine(Tool t) {
    return source.owns(t);
  }

  ToolDefinition definition(McpSchema.Tool spec) {
    String description = spec.description() != null ? spec.description()
        : spec.title() != null ? spec.title() : "";
    ToolDefinition.Builder b = ToolDefinition.builder(runtimeName(prefix, spec.name())).description(description);
    if (spec.inputSchema() != null) {
      b.parameters(JSON.valueToTree(spec.inputSchema()));
    }
    if (spec.outputSchema() != null) {
      JsonNode output = JSON.valueToTree(spec.outputSchema());
      b.outputSchema(output);
    }
    McpSchema.ToolAnnotations a = spec.annotations();
    boolean readOnly = a != null && Boolean.TRUE.equals(a.readOnlyHint());
    boolean destructive = !readOnly && (a == null || a.destructiveHint() == null || a.destructiveHint());
    b.readOnly(readOnly).idempotent(a != null && Boolean.TRUE.equals(a.idempotentHint()))
        .requiresApproval(!(readOnly && trustReadOnlyHints));
    if (customize != null) {
      customize.accept(spec, b);
    }
    if (destructive) {
      b.requiresApproval(true); // a destructive tool always asks
    }
    return b.build();
  }

  /**
   * The runtime's name for the server tool {@code name}: {@code prefix + name}; when that is longer than the 128
   * characters a tool name may have, {@code prefix}, {@code name} cut to fit, {@code _} and 8 hex digits of the
   * whole {@code name}'s hash (the same on every connection; names that differ only past the cut stay apart). Calls
   * reach the server under its own name.
   */
  static String runtimeName(String prefix, String name) {
    String full = prefix + name;
    int max = 128;
    int keep = max - prefix.length() - 9;
    if (full.length() <= max || keep < 1) {
      return full; // fits, or cannot be made to fit: the definition refuses it
    }
    return prefix + name.substring(0, keep) + "_" + String.format(Locale.ROOT, "%08x", name.hashCode());
  }
}
