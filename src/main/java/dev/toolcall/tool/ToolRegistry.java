package dev.toolcall.tool;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * The tools a runtime offers, by name. Immutable and thread-safe once built: look-ups need no locks and see the same
 * tools forever.
 *
 * <h2>Building</h2>
 * {@link #builder()} registers tools in order; a second tool with a name already registered is a programming error
 * and throws at once, naming the duplicate. Each tool's {@link Tool#definition()} is read once, at registration, and
 * its parameters schema is compiled once, at {@link Builder#build()}; a schema that is not valid JSON Schema (or
 * cannot be compiled) throws there, naming the tool.
 *
 * <h2>Changing the set</h2>
 * A registry never changes; {@link #with} and {@link #without} make a new one that shares the compiled schemas of
 * the tools they keep. A runtime swaps its registry between batches ({@code ToolCallRuntime.updateTools}).
 *
 * <h2>Names</h2>
 * A tool may be named as MCP allows ({@link ToolDefinition#NAME}: dots and slashes, up to 128 characters). Model
 * providers accept less ({@link ToolDefinition#MODEL_NAME}), so each tool also has a {@linkplain #modelName model
 * name}: the name itself when providers accept it, else an alias made from it (each character outside
 * {@code [a-zA-Z0-9_-]} becomes {@code _}; a name longer than 64 is cut to 55 characters plus {@code _} and 8 hex
 * digits of a hash of the whole name; a clash with another tool's name or alias adds a hash, then a counter). The
 * mapping is reversible within the registry: {@link #find}, {@link #contains} and validation accept the alias and
 * resolve it to the tool, and {@link #canonicalName} gives the tool's own name back. {@link #modelDefinitions()} is
 * what a model is told. Names match exactly, code unit for code unit: a name that differs in letter case, uses full-width letters or
 * carries invisible characters (zero-width space) is not the tool's name. Such look-alikes are what
 * {@link #suggestions(String)} finds, so the model can be told the right name: see {@link #unknownToolMessage}.
 */
public final class ToolRegistry {

  /** At most this many names are listed as available in an unknown-tool message. */
  static final int MAX_LISTED = 50;
  /** At most this many suggestions are made. */
  static final int MAX_SUGGESTIONS = 5;

  private final Map<String, Entry> byName;
  private final List<Tool> tools;
  private final List<ToolDefinition> definitions;
  private final List<String> names;
  private final Map<String, String> aliasToName;
  private final Map<String, String> nameToAlias;
  private final List<ToolDefinition> modelDefinitions;
  private final List<String> modelNames;

  /** A registered tool with the definition read at registration and its compiled schemas. */
  static final class Entry {
    final Tool tool;
    final ToolDefinition definition;
    final ArgumentSchema schema;
    final ArgumentSchema outputSchema; // null when the tool declares none

    Entry(Tool tool, ToolDefinition definition, ArgumentSchema schema, ArgumentSchema outputSchema) {
      this.tool = tool;
      this.definition = definition;
      this.schema = schema;
      this.outputSchema = outputSchema;
    }
  }

  private ToolRegistry(Map<String, Entry> byName) {
    this.byName = Collections.unmodifiableMap(byName);
    Map<String, String> toName = new LinkedHashMap<>();
    Map<String, String> toAlias = new LinkedHashMap<>();
    for (String n : byName.keySet()) {
      if (!ToolDefinition.MODEL_NAME.matcher(n).matches()) {
        String a = alias(n, byName, toName);
        toName.put(a, n);
        toAlias.put(n, a);
      }
    }
    this.aliasToName = Collections.unmodifiableMap(toName);
    this.nameToAlias = Collections.unmodifiableMap(toAlias);
    List<ToolDefinition> md = new ArrayList<>(byName.size());
    for (Entry e : byName.values()) {
      String a = toAlias.get(e.definition.name());
      md.add(a == null ? e.definition : renamed(e.definition, a));
    }
    this.modelDefinitions = List.copyOf(md);
    List<String> mn = new ArrayList<>(byName.size());
    for (String n : byName.keySet()) {
      mn.add(toAlias.getOrDefault(n, n));
    }
    this.modelNames = List.copyOf(mn);
    List<Tool> t = new ArrayList<>(byName.size());
    List<ToolDefinition> d = new ArrayList<>(byName.size());
    for (Entry e : byName.values()) {
      t.add(e.tool);
      d.add(e.definition);
    }
    this.tools = List.copyOf(t);
    this.definitions = List.copyOf(d);
    this.names = List.copyOf(byName.keySet());
  }

  /** A builder for a registry. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A registry of {@code tools}, in this order.
   *
   * @throws IllegalArgumentException if two tools share a name, or a schema is invalid
   */
  public static ToolRegistry of(Tool... tools) {
    Objects.requireNonNull(tools, "tools");
    return builder().registerAll(List.of(tools)).build();
  }

  /**
   * A registry of {@code tools}, in iteration order.
   *
   * @throws IllegalArgumentException if two tools share a name, or a schema is invalid
   */
  public static ToolRegistry of(Iterable<? extends Tool> tools) {
    return builder().registerAll(tools).build();
  }

  private static String alias(String name, Map<String, Entry> names, Map<String, String> taken) {
    StringBuilder b = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      b.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
          ? c : '_');
    }
    String hash = String.format("%08x", name.hashCode());
    String a = b.length() > 64 ? b.substring(0, 55) + "_" + hash : b.toString();
    if (names.containsKey(a) || taken.containsKey(a)) {
      a = b.substring(0, Math.min(b.length(), 55)) + "_" + hash;
    }
    for (int n = 2; names.containsKey(a) || taken.containsKey(a); n++) {
      String suffix = "_" + n;
      a = b.substring(0, Math.min(b.length(), 64 - suffix.length())) + suffix;
    }
    return a;
  }

  private static ToolDefinition renamed(ToolDefinition d, String alias) {
    return new ToolDefinition(alias, d.description(), d.parameters(), d.requiresApproval(), d.readOnly(),
        d.idempotent(), d.timeoutIfSet().orElse(null), d.permissionTimeoutIfSet().orElse(null), d.retryPolicy(),
        d.returnDirect(), d.outputSchema());
  }

  /** The tool named exactly {@code name} or whose model name is {@code name}; empty for any other, including null. */
  public Optional<Tool> find(String name) {
    Entry e = entry(name);
    return e == null ? Optional.empty() : Optional.of(e.tool);
  }

  /**
   * The tool named exactly {@code name}.
   *
   * @throws NoSuchElementException with {@link #unknownToolMessage} if there is none
   */
  public Tool require(String name) {
    Entry e = entry(name);
    if (e == null) {
      throw new NoSuchElementException(unknownToolMessage(name));
    }
    return e.tool;
  }

  /** Whether a tool is named exactly {@code name}, or has {@code name} as its model name. */
  public boolean contains(String name) {
    return entry(name) != null;
  }

  /**
   * The name the model is told for the tool named {@code name}: the name itself when model providers accept it,
   * else its alias (see the class documentation).
   *
   * @throws NoSuchElementException if no tool is named {@code name}
   */
  public String modelName(String name) {
    if (name == null || !byName.containsKey(name)) {
      throw new NoSuchElementException(unknownToolMessage(name));
    }
    return nameToAlias.getOrDefault(name, name);
  }

  /** The tool's own name for {@code name}, which may be a model name; {@code name} itself when it is no alias. */
  public String canonicalName(String name) {
    if (name == null) {
      return null;
    }
    String n = aliasToName.get(name);
    return n == null || byName.containsKey(name) ? name : n;
  }

  /**
   * The definitions as a model is told them: {@link #definitions()} with each name that providers would reject
   * replaced by its {@linkplain #modelName alias}. Immutable.
   */
  public List<ToolDefinition> modelDefinitions() {
    return modelDefinitions;
  }

  /**
   * A registry with {@code tools} added, each replacing a tool of the same name in its place, or appended. The
   * schemas of the tools kept are not compiled again.
   *
   * @throws IllegalArgumentException if two of {@code tools} share a name, or a schema is invalid
   */
  public ToolRegistry with(Tool... tools) {
    Objects.requireNonNull(tools, "tools");
    LinkedHashMap<String, Entry> next = new LinkedHashMap<>(byName);
    ArgumentSchema.Compiler compiler = new ArgumentSchema.Compiler();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Tool t : tools) {
      Objects.requireNonNull(t, "tool");
      ToolDefinition d = Objects.requireNonNull(t.definition(), "definition of " + t);
      if (!seen.add(d.name())) {
        throw new IllegalArgumentException("duplicate tool name '" + d.name() + "' in one change; each tool needs a"
            + " unique name");
      }
      next.put(d.name(), new Entry(t, d, compiler.compile(d), compiler.compileOutput(d)));
    }
    return new ToolRegistry(next);
  }

  /** A registry without the tools named {@code names} (names not present are ignored). */
  public ToolRegistry without(String... names) {
    Objects.requireNonNull(names, "names");
    LinkedHashMap<String, Entry> next = new LinkedHashMap<>(byName);
    for (String n : names) {
      next.remove(Objects.requireNonNull(n, "name"));
    }
    return new ToolRegistry(next);
  }

  /** The definitions, as read at registration, in registration order (what the model is told). Immutable. */
  public List<ToolDefinition> definitions() {
    return definitions;
  }

  /** The tools in registration order. Immutable. */
  public List<Tool> tools() {
    return tools;
  }

  /** The names in registration order. Immutable. */
  public List<String> names() {
    return names;
  }

  /** How many tools there are. */
  public int size() {
    return byName.size();
  }

  /**
   * Names close to {@code name}, best first, at most five, as the model knows them ({@linkplain #modelName model
   * names}): the same name in another case, width or with
   * invisible characters; a typo or swapped letters (Damerau-Levenshtein distance up to 1 to 3 by length); the same
   * words in another order; or a name containing or contained in the other. Empty when nothing is close (and for
   * null). Never throws.
   */
  public List<String> suggestions(String name) {
    return NameSuggester.suggest(name, modelNames, MAX_SUGGESTIONS);
  }

  /**
   * What to tell the model when it called {@code name} and no tool has that name (names listed and suggested as the
   * model knows them: {@linkplain #modelName model names}), for example
   * {@code Unknown tool 'reed_file'. Did you mean read_file? Available tools: read_file, write_file.} The name is
   * echoed with invisible characters spelled out ({@code \}{@code u200B}) and cut to 100 characters; at most 50
   * available names are listed. Never throws.
   */
  public String unknownToolMessage(String name) {
    StringBuilder out = new StringBuilder();
    if (name == null || name.isEmpty()) {
      out.append("The tool call does not name a tool.");
    } else {
      out.append("Unknown tool '").append(ModelText.visible(name, 100, false)).append("'.");
      List<String> close = suggestions(name);
      if (!close.isEmpty()) {
        out.append(" Did you mean ").append(String.join(" or ", close)).append('?');
        if (NameSuggester.lookAlike(name, close.get(0))) {
          out.append(" Tool names must match exactly: letter case, width and invisible characters count.");
        }
      }
    }
    if (names.isEmpty()) {
      out.append(" No tools are available.");
    } else {
      out.append(" Available tools: ");
      out.append(String.join(", ", modelNames.subList(0, Math.min(MAX_LISTED, names.size()))));
      if (names.size() > MAX_LISTED) {
        out.append(", and ").append(names.size() - MAX_LISTED).append(" more");
      }
      out.append('.');
    }
    return out.toString();
  }

  /** The entry for exactly {@code name} or the tool whose alias it is, or null. */
  Entry entry(String name) {
    if (name == null) {
      return null;
    }
    Entry e = byName.get(name);
    if (e == null && !aliasToName.isEmpty()) {
      String n = aliasToName.get(name);
      e = n == null ? null : byName.get(n);
    }
    return e;
  }

  @Override
  public String toString() {
    return "ToolRegistry" + names;
  }

  /**
   * Registers tools and builds a {@link ToolRegistry}. Not thread-safe; {@link #build()} may be called more than
   * once, each registry independent of later registrations.
   */
  public static final class Builder {
    private final LinkedHashMap<String, Registration> tools = new LinkedHashMap<>();

    private static final class Registration {
      final Tool tool;
      final ToolDefinition definition;

      Registration(Tool tool, ToolDefinition definition) {
        this.tool = tool;
        this.definition = definition;
      }
    }

    private Builder() {}

    /**
     * Registers {@code tool} under its definition's name.
     *
     * @throws NullPointerException if the tool or its definition is null
     * @throws IllegalArgumentException if a tool of that name is already registered
     */
    public Builder register(Tool tool) {
      Objects.requireNonNull(tool, "tool");
      ToolDefinition definition = Objects.requireNonNull(tool.definition(), "tool.definition()");
      Registration existing = tools.get(definition.name());
      if (existing != null) {
        throw new IllegalArgumentException("duplicate tool name '" + definition.name() + "': " + tool
            + " has the same name as the already registered " + existing.tool
            + "; each tool needs a unique name");
      }
      tools.put(definition.name(), new Registration(tool, definition));
      return this;
    }

    /**
     * Registers each of {@code tools} in order.
     *
     * @throws IllegalArgumentException if a name is registered twice
     */
    public Builder registerAll(Iterable<? extends Tool> tools) {
      Objects.requireNonNull(tools, "tools");
      for (Tool tool : tools) {
        register(tool);
      }
      return this;
    }

    /**
     * Compiles every schema and builds the registry.
     *
     * @throws IllegalArgumentException naming the tool whose parameters schema is not a valid JSON Schema
     */
    public ToolRegistry build() {
      ArgumentSchema.Compiler compiler = new ArgumentSchema.Compiler();
      LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();
      for (Map.Entry<String, Registration> e : tools.entrySet()) {
        Registration r = e.getValue();
        entries.put(e.getKey(), new Entry(r.tool, r.definition, compiler.compile(r.definition),
            compiler.compileOutput(r.definition)));
      }
      return new ToolRegistry(entries);
    }
  }
}
