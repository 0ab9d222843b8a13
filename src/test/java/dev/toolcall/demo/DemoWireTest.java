package dev.toolcall.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.toolcall.event.Event;
import dev.toolcall.wire.WireFormat;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 29, part 2: every event the demo's turn produces (run in-process with {@code --auto}, as {@code .ci/run}
 * does) has a wire form that validates against the JSON Schema shipped in the jar, read from the class path with the
 * networknt validator, independently of the library's own code.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DemoWireTest {

  static final ObjectMapper JSON = new ObjectMapper();

  /** The schema's definition {@code def} (such as {@code event}), compiled from the jar's resource. */
  static Schema schema(String def) throws Exception {
    try (InputStream in = DemoWireTest.class.getClassLoader().getResourceAsStream(WireFormat.SCHEMA_RESOURCE)) {
      assertThat(in).as("the schema is on the class path at " + WireFormat.SCHEMA_RESOURCE).isNotNull();
      ObjectNode root = (ObjectNode) JSON.readTree(in);
      root.remove("oneOf");
      root.remove("$id");
      root.put("$ref", "#/$defs/" + def);
      return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(root);
    }
  }

  @Test
  void everyEventOfTheDemoValidatesAgainstTheWireSchema() throws Exception {
    Demo.Run run = Demo.run(DemoRunTest.args("--auto"), InputStream.nullInputStream(),
        new PrintStream(OutputStream.nullOutputStream(), true, "UTF-8"));
    List<Event> events = run.events();
    assertThat(events).hasSizeGreaterThan(50);
    Schema schema = schema("event");
    Set<String> types = new TreeSet<>();
    for (Event e : events) {
      JsonNode json = WireFormat.event(e);
      List<Error> problems = schema.validate(json);
      assertThat(problems).as("%s\n%s", json, problems).isEmpty();
      assertThat(json.get("v").asInt()).isEqualTo(WireFormat.VERSION);
      types.add(json.get("type").asText() + (json.has("request") ? "+request" : "")
          + (json.has("outcome") ? "+outcome" : ""));
    }
    assertThat(types).as("the demo covers calls, requests, outcomes, output, retries and the conversation")
        .contains("call.created", "call.state", "call.state+request", "call.state+outcome", "call.output",
            "call.retry", "conversation.state");
    JsonNode result = WireFormat.turnResult("demo", run.turn());
    assertThat(schema("turnResult").validate(result)).isEmpty();
  }
}
