package dev.toolcall.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON trees nobody can change: objects and arrays whose children live in unmodifiable collections, so every
 * mutator of Jackson's {@link ObjectNode} and {@link ArrayNode} throws {@link UnsupportedOperationException}, and
 * whose children are frozen too (or values, which Jackson never changes). A frozen tree may be shared without a copy:
 * {@code ToolArguments.Json} keeps one as it is instead of copying it, and still hands out mutable copies. The argument
 * parser builds its trees frozen. Equal to the same tree unfrozen ({@link ObjectNode#equals} compares children);
 * {@link JsonNode#deepCopy()} gives a mutable copy. Not API: shared by the library's packages. Thread-safe: frozen
 * trees are immutable.
 */
public final class FrozenJson {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectNode EMPTY_OBJECT = new Obj(Collections.unmodifiableMap(new LinkedHashMap<>(0)));
  private static final ArrayNode EMPTY_ARRAY = new Arr(Collections.unmodifiableList(new ArrayList<>(0)));

  private FrozenJson() {}

  /** A frozen object. */
  private static final class Obj extends ObjectNode {
    private static final long serialVersionUID = 1L;

    Obj(Map<String, JsonNode> children) {
      super(NODES, children);
    }
  }

  /** A frozen array. */
  private static final class Arr extends ArrayNode {
    private static final long serialVersionUID = 1L;

    Arr(List<JsonNode> children) {
      super(NODES, children);
    }
  }

  /** Whether {@code node} can be shared without a copy: a frozen container, or a value. */
  public static boolean isFrozen(JsonNode node) {
    return node instanceof Obj || node instanceof Arr || !(node instanceof ContainerNode);
  }

  /**
   * A frozen object of {@code children}, which it takes over (the caller must not keep or change the map); a child
   * that is not frozen is replaced by a frozen copy of it.
   */
  public static ObjectNode object(LinkedHashMap<String, JsonNode> children) {
    if (children.isEmpty()) {
      return EMPTY_OBJECT;
    }
    for (Map.Entry<String, JsonNode> e : children.entrySet()) {
      if (!isFrozen(e.getValue())) {
        e.setValue(freeze(e.getValue()));
      }
    }
    return new Obj(Collections.unmodifiableMap(children));
  }

  /**
   * A frozen array of {@code children}, which it takes over (the caller must not keep or change the list); a child
   * that is not frozen is replaced by a frozen copy of it.
   */
  public static ArrayNode array(ArrayList<JsonNode> children) {
    if (children.isEmpty()) {
      return EMPTY_ARRAY;
    }
    for (int i = 0; i < children.size(); i++) {
      if (!isFrozen(children.get(i))) {
        children.set(i, freeze(children.get(i)));
      }
    }
    return new Arr(Collections.unmodifiableList(children));
  }

  /** {@code node} itself when frozen, else a frozen copy of it. */
  public static JsonNode freeze(JsonNode node) {
    if (isFrozen(node)) {
      return node;
    }
    if (node instanceof ObjectNode) {
      LinkedHashMap<String, JsonNode> map = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        map.put(e.getKey(), freeze(e.getValue()));
      }
      return object(map);
    }
    ArrayList<JsonNode> list = new ArrayList<>(node.size());
    for (JsonNode child : node) {
      list.add(freeze(child));
    }
    return array(list);
  }
}
