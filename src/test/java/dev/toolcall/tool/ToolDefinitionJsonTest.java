package dev.toolcall.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
