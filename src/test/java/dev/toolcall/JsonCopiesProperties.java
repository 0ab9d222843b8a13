package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** The sized copies {@link ToolArguments.Json} makes of its tree. */
class JsonCopiesProperties {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /**
   * Invariant: for any JSON tree (objects of 0 to 20 properties, arrays of 0 to 20 elements, nested, every value
   * type), the copy equals Jackson's own deep copy, and changing every container of the copy leaves the original
   * (and the arguments made from it) unchanged: no container is shared.
   */
  @Property(tries = 300)
  void aCopyEqualsJacksonsAndSharesNoContainer(@ForAll Random random) {
    JsonNode tree = tree(random, 0);
    JsonNode before = tree.deepCopy();
    ToolArguments.Json arguments = new ToolArguments.Json(tree.toString(), tree);
    JsonNode copy = JsonCopies.copy(tree);
    assertThat(copy).isEqualTo(before);
    assertThat(arguments.node()).isEqualTo(before);
    scribble(copy);
    scribble(arguments.asJson());
    assertThat(tree).isEqualTo(before);
    assertThat(arguments.node()).isEqualTo(before);
  }

  private static void scribble(JsonNode node) {
    if (node instanceof ObjectNode) {
      ObjectNode o = (ObjectNode) node;
      o.fieldNames().forEachRemaining(name -> scribble(o.get(name)));
      o.put("scribbled", true);
    } else if (node instanceof ArrayNode) {
      ArrayNode a = (ArrayNode) node;
      a.forEach(JsonCopiesProperties::scribble);
      a.add("scribbled");
    }
  }

  private static JsonNode tree(Random r, int depth) {
    switch (r.nextInt(depth < 3 ? 7 : 4)) {
      case 0:
        return NODES.nullNode();
      case 1:
        return NODES.numberNode(r.nextInt(2) == 0 ? r.nextInt() : r.nextDouble());
      case 2:
        return NODES.booleanNode(r.nextBoolean());
      case 3:
        return NODES.textNode("s" + r.nextInt(100));
      case 4:
      case 5: {
        ObjectNode o = NODES.objectNode();
        for (int i = r.nextInt(21); i > 0; i--) {
          o.set("p" + r.nextInt(40), tree(r, depth + 1));
        }
        return o;
      }
      default: {
        ArrayNode a = NODES.arrayNode();
        for (int i = r.nextInt(21); i > 0; i--) {
          a.add(tree(r, depth + 1));
        }
        return a;
      }
    }
  }
}
