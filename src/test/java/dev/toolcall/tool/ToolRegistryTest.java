package dev.toolcall.tool;

import dev.toolcall.ToolResult;
import dev.toolcall.testing.Logs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.testing.CountingTools;
import java.util.List;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ToolRegistryTest {

  private final CountingTools counting = new CountingTools();
  private final ToolRegistry registry = ToolRegistry.of(
      tool("read_file"), tool("write_file"), tool("list_dir"), tool("shell"), tool("web_search"));

  private Tool tool(String name) {
    return counting.tool(name, "{\"type\":\"object\"}");
  }

  @Test
  void aDuplicateNameThrowsNamingIt() {
    ToolRegistry.Builder builder = ToolRegistry.builder().register(tool("read_file"));
    assertThatThrownBy(() -> builder.register(tool("read_file")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate tool name 'read_file'");
    assertThatThrownBy(() -> ToolRegistry.of(tool("a"), tool("b"), tool("a")))
        .hasMessageContaining("'a'");
  }

  @Test
  void definitionsAndNamesKeepRegistrationOrderAndAreImmutable() {
    assertThat(registry.names()).containsExactly("read_file", "write_file", "list_dir", "shell", "web_search");
    assertThat(registry.definitions()).extracting(ToolDefinition::name).containsExactlyElementsOf(registry.names());
    assertThat(registry.tools()).extracting(Tool::name).containsExactlyElementsOf(registry.names());
    assertThat(registry.size()).isEqualTo(5);
    assertThatThrownBy(() -> registry.definitions().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> registry.names().add("x")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void findAndRequireMatchExactly() {
    assertThat(registry.find("shell")).map(Tool::name).contains("shell");
    assertThat(registry.find("Shell")).isEmpty();
    assertThat(registry.find(null)).isEmpty();
    assertThat(registry.contains("list_dir")).isTrue();
    assertThat(registry.contains(null)).isFalse();
    assertThat(registry.require("list_dir").name()).isEqualTo("list_dir");
    assertThatThrownBy(() -> registry.require("reed_file"))
        .isInstanceOf(NoSuchElementException.class)
        .hasMessageContaining("Did you mean read_file?");
  }

  @ParameterizedTest
  @ValueSource(strings = {"READ_FILE", "Read_File", "read\u200Bfile", "read_file\u200B", "\uFEFFread_file",
      "\uFF52\uFF45\uFF41\uFF44_\uFF46\uFF49\uFF4C\uFF45", "r\u0435ad_file", "read_file ", " read_file",
      "read_file\n", "read_fil\u0435"})
  void lookAlikesDoNotMatchButAreSuggested(String lookAlike) {
    assertThat(registry.find(lookAlike)).isEmpty();
    assertThat(registry.suggestions(lookAlike)).first().isEqualTo("read_file");
  }

  @ParameterizedTest
  @CsvSource({
      "reed_file, read_file",      // substitution
      "raed_file, read_file",      // transposition
      "readfile, read_file",       // deletion
      "read__file, read_file",     // insertion
      "file_read, read_file",      // same words, other order
      "functions.read_file, read_file", // namespaced
      "web-search, web_search",
      "websearch, web_search",
      "list_directory, list_dir",  // contains
      "sh, shell",
      "shel, shell",
  })
  void suggestionsFindCloseNames(String input, String expected) {
    assertThat(registry.suggestions(input)).first().isEqualTo(expected);
  }

  @Test
  void suggestionsAreRankedAndBounded() {
    assertThat(registry.suggestions("write_fil")).first().isEqualTo("write_file");
    assertThat(registry.suggestions("file")).contains("read_file", "write_file").doesNotContain("shell");
    assertThat(registry.suggestions("launch_missiles")).isEmpty();
    assertThat(registry.suggestions("")).isEmpty();
    assertThat(registry.suggestions(null)).isEmpty();
    assertThat(registry.suggestions("x".repeat(1_000_000))).isEmpty();
    assertThat(registry.suggestions("_")).hasSizeLessThanOrEqualTo(5);
  }

  @Test
  void theUnknownToolMessageSuggestsAndListsTools() {
    assertThat(registry.unknownToolMessage("reed_file")).isEqualTo("Unknown tool 'reed_file'. Did you mean "
        + "read_file? Available tools: read_file, write_file, list_dir, shell, web_search.");
    assertThat(registry.unknownToolMessage("launch")).isEqualTo(
        "Unknown tool 'launch'. Available tools: read_file, write_file, list_dir, shell, web_search.");
    assertThat(registry.unknownToolMessage("")).startsWith("The tool call does not name a tool.");
    assertThat(registry.unknownToolMessage(null)).startsWith("The tool call does not name a tool.");
    assertThat(ToolRegistry.builder().build().unknownToolMessage("x")).isEqualTo(
        "Unknown tool 'x'. No tools are available.");
  }

  @Test
  void theUnknownToolMessageShowsHiddenCharactersAndExplainsExactMatching() {
    String message = registry.unknownToolMessage("read_\u200Bfile\u001B");
    assertThat(message).contains("'read_\\u200Bfile\\u001B'").contains("Did you mean read_file?")
        .contains("must match exactly");
    ValidationFixture.assertModelMessage(message);
    assertThat(registry.unknownToolMessage("y".repeat(10_000)).length()).isLessThan(400);
  }

  @Test
  void theAvailableListIsCapped() {
    ToolRegistry.Builder builder = ToolRegistry.builder();
    for (int i = 0; i < 60; i++) {
      builder.register(tool("tool_" + i));
    }
    assertThat(builder.build().unknownToolMessage("zzz")).endsWith("tool_49, and 10 more.");
  }

  @Test
  void anInvalidSchemaThrowsAtBuildNamingTheTool() {
    Logs.expect("com.networknt.schema.keyword.PatternValidator"); // the validator logs the bad schemas
    Logs.expect("com.networknt.schema.dialect.Dialect");
    String[] bad = {
        "{\"type\":123}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"minLength\":\"x\"}}}",
        "{\"type\":\"object\",\"required\":\"a\"}",
        "{\"$ref\":\"#/$defs/missing\"}",
        "{\"properties\":{\"a\":{\"pattern\":\"[\"}}}",
        "{\"$schema\":\"https://example.com/my-dialect\",\"type\":\"object\"}",
        "{\"$ref\":\"https://example.invalid/schema.json\"}",
    };
    for (String schema : bad) {
      ToolRegistry.Builder builder = ToolRegistry.builder().register(counting.tool("broken_tool", schema));
      assertThatThrownBy(builder::build).as(schema)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("tool 'broken_tool'");
    }
  }

  @Test
  void olderDraftsAreHonoured() {
    ToolRegistry r = ToolRegistry.of(counting.tool("d7", "{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
        + "\"type\":\"object\",\"required\":[\"x\"]}"), counting.tool("d4",
        "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"type\":\"object\",\"properties\":"
            + "{\"n\":{\"type\":\"number\",\"maximum\":1,\"exclusiveMaximum\":true}}}"));
    ToolCallValidator v = ToolCallValidator.of(r);
    assertThat(v.validate("d7", "{}").isValid()).isFalse();
    assertThat(v.validate("d7", "{\"x\":1}").isValid()).isTrue();
    assertThat(v.validate("d4", "{\"n\":1}").isValid()).isFalse();
    assertThat(v.validate("d4", "{\"n\":0.5}").isValid()).isTrue();
  }

  @Test
  void theDefinitionIsReadOnceAtRegistration() {
    ToolDefinition first = ToolDefinition.builder("shifty").build();
    ToolDefinition second = ToolDefinition.builder("renamed").build();
    Tool shifty = new Tool() {
      private int reads;

      @Override
      public ToolDefinition definition() {
        return reads++ == 0 ? first : second;
      }

      @Override
      public java.util.concurrent.CompletionStage<ToolResult> execute(ToolInvocation invocation) {
        throw new AssertionError("not run");
      }
    };
    ToolRegistry r = ToolRegistry.of(List.of(shifty));
    assertThat(r.names()).containsExactly("shifty");
    assertThat(r.definitions()).containsExactly(first);
    assertThat(ToolCallValidator.of(r).validate("shifty", "{}"))
        .isEqualTo(new ToolCallValidation.Valid(shifty, first, ParsedArguments.parse("{}") instanceof
            ParsedArguments.Ok ok ? ok.arguments() : null));
  }

  @Test
  void programmingErrorsNameTheParameter() {
    assertThatThrownBy(() -> ToolRegistry.builder().register(null)).hasMessageContaining("tool");
    assertThatThrownBy(() -> ToolCallValidator.of(null)).hasMessageContaining("registry");
    assertThatThrownBy(() -> ToolCallValidator.of(registry, null)).hasMessageContaining("limits");
  }
}
