package dev.toolcall;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Deep copies of argument trees for {@link ToolArguments.Json}, equal to {@link JsonNode#deepCopy()} but with each
 * object's map and each array's list made at the size it needs: Jackson's own copy starts every object at a table of
 * 16 slots and every array at 10, so a copy of {@code {"a":1,"b":2,"note":"x"}} cost 48 bytes more per copy (one on
 * the way in, one per {@link ToolArguments#asJson()}). Values (strings, numbers, booleans, null) are immutable and
 * shared, as Jackson's copy shares them. Containers are made with {@link JsonNodeFactory#instance}. Stateless.
 */
final class JsonCopies {

  private JsonCopies() {
  }

  /** A copy of {@code node} sharing nothing mutable with it. */
  static JsonNode copy(JsonNode node) {
    if (node instanceof ObjectNode) {
      Map<String, JsonNode> map = new LinkedHashMap<>(capacity(node.size()));
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> e = it.next();
        map.put(e.getKey(), copy(e.getValue()));
      }
      return new ObjectNode(JsonNodeFactory.instance, map);
    }
    if (node instanceof ArrayNode) {
      int size = node.size();
      ArrayList<JsonNode> list = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        list.add(copy(node.get(i)));
      }
      return new ArrayNode(JsonNodeFactory.instance, list);
    }
    return node.deepCopy();
  }

  /** The initial capacity at which a {@link LinkedHashMap} holds {@code size} entries without growing. */
  private static int capacity(int size) {
    return size < 3 ? size + 1 : (int) Math.ceil(size / 0.75);
  }
}
