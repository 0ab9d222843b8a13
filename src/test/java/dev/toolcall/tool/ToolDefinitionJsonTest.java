package dev.toolcall.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A {@link ToolDefinition} read from and written to the JSON forms providers use for function tools; seed 03's
 * {@code requires_approval} is true when absent; malformed input names the field.
 */
class ToolDefinitionJsonTest {
  static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
      + "\"required\":[\"path\"]}";

  @Test
  void theThreeProviderFormsReadTheSameAndApprovalDefaultsToRequired() {
    ToolDefinition flat = ToolDefinition.fromJson("{\"type\":\"function\",\"name\":\"read_file\","
        + "\"description\":\"Reads a file\",\"parameters\":" + SCHEMA + ",\"strict\":true}");
    ToolDefinition nested = ToolDefinition.fromJson("{\"type\":\"function\",\"function\":{\"name\":\"read_file\","
        + "\"description\":\"Reads a file\",\"parameters\":" + SCHEMA + "}}");
    ToolDefinition anthropic = ToolDefinition.fromJson("{\"name\":\"read_file\",\"description\":\"Reads a file\","
        + "\"input_schema\":" + SCHEMA + "}");
    assertThat(flat).isEqualTo(nested).isEqualTo(anthropic);
    assertThat(flat.requiresApproval()).as("seed 03: absent means true").isTrue();
    assertThat(flat.readOnly()).isFalse();
    assertThat(flat.parameters().path("required").get(0).asText()).isEqualTo("path");
  }

  @Test
  void flagsAreReadAndARoundTripKeepsTheDefinition() {
    ToolDefinition d = ToolDefinition.fromJson("{\"name\":\"ls\",\"parameters\":{\"type\":\"object\"},"
        + "\"requires_approval\":false,\"read_only\":true,\"idempotent\":true,\"return_direct\":true}");
    assertThat(d.requiresApproval()).isFalse();
    assertThat(d.readOnly()).isTrue();
    assertThat(d.idempotent()).isTrue();
    assertThat(d.returnDirect()).isTrue();
    assertThat(ToolDefinition.fromJson(d.toJson())).isEqualTo(d);
    ToolDefinition shell = ToolDefinition.builder("shell").description("Runs a command").parameters(SCHEMA).build();
    assertThat(shell.toJson().get("requires_approval").booleanValue()).isTrue();
    assertThat(shell.toJson().get("type").asText()).isEqualTo("function");
    assertThat(ToolDefinition.fromJson(shell.toJson().toString())).isEqualTo(shell);
  }

  /**
   * Everything a definition holds survives {@code toJson} and {@code fromJson}: the output schema, both timeouts (to
   * the nanosecond) and the retry policy, as well as the flags; nothing is dropped without a word.
   */
  @Test
  void aRoundTripKeepsTheOutputSchemaTimeoutsAndRetryPolicy() {
    ToolDefinition d = ToolDefinition.builder("fetch").description("Fetches a page").parameters(SCHEMA)
        .outputSchema("{\"type\":\"object\",\"properties\":{\"status\":{\"type\":\"integer\"}}}")
        .timeout(Duration.ofSeconds(12, 345_678_901)).permissionTimeout(Duration.ofMinutes(3))
        .retryPolicy(new RetryPolicy(4, Duration.ofMillis(250), 1.5, Duration.ofSeconds(9), 0.25))
        .readOnly(true).idempotent(true).build();
    com.fasterxml.jackson.databind.node.ObjectNode json = d.toJson();
    assertThat(json.get("output_schema")).isEqualTo(d.outputSchema());
    assertThat(json.get("timeout").asText()).isEqualTo("PT12.345678901S");
    assertThat(json.get("permission_timeout").asText()).isEqualTo("PT3M");
    assertThat(json.get("retry_policy").get("max_attempts").intValue()).isEqualTo(4);
    assertThat(ToolDefinition.fromJson(json)).isEqualTo(d);
    assertThat(ToolDefinition.fromJson(json.toString())).isEqualTo(d);

    ToolDefinition plain = ToolDefinition.builder("ls").build();
    assertThat(plain.toJson().has("output_schema")).as("unset parts are left out").isFalse();
    assertThat(plain.toJson().has("timeout")).isFalse();
    assertThat(plain.toJson().has("retry_policy")).isFalse();
    assertThat(ToolDefinition.fromJson(plain.toJson())).isEqualTo(plain);
    // MCP's spelling of the output schema reads too
    assertThat(ToolDefinition.fromJson("{\"name\":\"a\",\"outputSchema\":{\"type\":\"object\"}}")
        .outputSchemaIfSet()).isPresent();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "not JSON           | {\"name\": | not valid JSON",
      "trailing text      | {\"name\":\"a\"} x | not valid JSON",
      "an array           | [1] | must be a JSON object",
      "no name            | {\"description\":\"d\"} | needs field 'name'",
      "name not a string  | {\"name\":7} | field 'name' must be a string",
      "bad name           | {\"name\":\"has space\"} | must match",
      "parameters array   | {\"name\":\"a\",\"parameters\":[]} | field 'parameters' of tool 'a' must be a JSON Schema object",
      "function a string  | {\"type\":\"function\",\"function\":\"a\"} | field 'function' must be an object",
      "approval a string  | {\"name\":\"a\",\"requires_approval\":\"no\"} | field 'requires_approval' must be true or false",
      "output schema text | {\"name\":\"a\",\"output_schema\":\"x\"} | field 'output_schema' of tool 'a' must be a JSON Schema object",
      "timeout a number   | {\"name\":\"a\",\"timeout\":30} | field 'timeout' must be an ISO-8601 duration",
      "timeout bad text   | {\"name\":\"a\",\"timeout\":\"30s\"} | field 'timeout' must be an ISO-8601 duration",
      "timeout negative   | {\"name\":\"a\",\"timeout\":\"PT-1S\"} | timeout must be positive",
      "retry not object   | {\"name\":\"a\",\"retry_policy\":3} | field 'retry_policy' must be an object",
      "retry no attempts  | {\"name\":\"a\",\"retry_policy\":{}} | field 'retry_policy.max_attempts'",
      "retry bad jitter   | {\"name\":\"a\",\"retry_policy\":{\"max_attempts\":2,\"initial_delay\":\"PT1S\",\"multiplier\":2,\"max_delay\":\"PT2S\",\"jitter\":5}} | jitter must be between 0 and 1",
  })
  void malformedDefinitionsNameTheField(String what, String json, String message) {
    assertThatThrownBy(() -> ToolDefinition.fromJson(json)).as(what).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void parametersFromJsonText() {
    assertThat(ToolDefinition.builder("a").parameters(SCHEMA).build().parameters().path("type").asText())
        .isEqualTo("object");
    assertThatThrownBy(() -> ToolDefinition.builder("a").parameters("{\"type\":")).isInstanceOf(
        IllegalArgumentException.class).hasMessageContaining("parameters is not valid JSON");
  }
}
