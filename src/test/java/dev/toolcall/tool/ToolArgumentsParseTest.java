package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.toolcall.FailureKind;
import dev.toolcall.testing.CountingTools;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ToolArgumentsParseTest {

  private static ToolArguments ok(String raw) {
    return ok(raw, ArgumentLimits.DEFAULT);
  }

  private static ToolArguments ok(String raw, ArgumentLimits limits) {
    ParsedArguments parsed = ParsedArguments.parse(raw, limits);
    assertThat(parsed).as("parse of %s", raw).isInstanceOf(ParsedArguments.Ok.class);
    assertThat(parsed.isOk()).isTrue();
    ToolArguments args = ((ParsedArguments.Ok) parsed).arguments();
    assertThat(args.raw()).as("raw kept byte for byte").isEqualTo(raw == null ? "" : raw);
    return args;
  }

  private static ParsedArguments.Invalid invalid(String raw, ArgumentLimits limits) {
    ParsedArguments parsed = ParsedArguments.parse(raw, limits);
    assertThat(parsed).as("parse of %s", raw).isInstanceOf(ParsedArguments.Invalid.class);
    ParsedArguments.Invalid invalid = (ParsedArguments.Invalid) parsed;
    ValidationFixture.assertModelMessage(invalid.message());
    return invalid;
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\n\t ", "\r\n"})
  void blankTextIsTheEmptyObjectWithTheRawKept(String raw) {
    ToolArguments args = ok(raw);
    assertThat(args).isInstanceOf(ToolArguments.Json.class);
    assertThat(args.asJson()).isEqualTo(JsonNodeFactory.instance.objectNode());
  }

  @Test
  void aTopLevelStringPropertyIsReadWithoutTheTree() {
    ToolArguments.Json args = (ToolArguments.Json) ok("{\"command\":\"npm test\",\"n\":1,\"o\":{\"command\":\"x\"}}");
    assertThat(args.text("command")).contains("npm test");
    assertThat(args.text("n")).as("not a string").isEmpty();
    assertThat(args.text("o")).as("not a string").isEmpty();
    assertThat(args.text("missing")).isEmpty();
    assertThat(((ToolArguments.Json) ok("[1,2]")).text("command")).as("not an object").isEmpty();
    assertThatThrownBy(() -> args.text(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("name");
  }

  @Test
  void nullIsNoArguments() {
    assertThat(ok(null).asJson()).isEqualTo(JsonNodeFactory.instance.objectNode());
  }

  @Test
  void aJsonStringIsText() {
    ToolArguments args = ok("  \"ls -la \\\"x\\\"\\n\" ");
    assertThat(args).isEqualTo(new ToolArguments.Text("  \"ls -la \\\"x\\\"\\n\" ", "ls -la \"x\"\n"));
  }

  @Test
  void anArrayOfStringsIsATextList() {
    ToolArguments args = ok("[\"git\", \"status\"]");
    assertThat(((ToolArguments.TextList) args).values()).containsExactly("git", "status");
    assertThat(ok("[]")).isInstanceOf(ToolArguments.TextList.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"a\":1}", "[1,\"a\"]", "[[\"a\"]]", "42", "-1.5e3", "true", "false", "null",
      " {\n  \"path\" : \"a\"\n}\n", "{\"\\u00e9\\uD83D\\uDE00\":\"\\u0000\"}"})
  void otherJsonIsJsonWithTheRawKept(String raw) {
    ToolArguments args = ok(raw);
    assertThat(args).isInstanceOf(ToolArguments.Json.class);
    assertThat(args.asJson()).isEqualTo(CountingTools.json(raw));
  }

  @ParameterizedTest
  @ValueSource(strings = {"ls -la", "npm test", "-rf /tmp/x", "10 files", "true story", "null pointer", "find .",
      "nul", "1 2", "'quoted'", "echo {}", "  padded  ", "tab\tand\nnewline", "caf\u00e9 \uD83D\uDE00"})
  void textThatDoesNotStartLikeJsonIsPlainText(String raw) {
    ToolArguments args = ok(raw);
    assertThat(args).isEqualTo(new ToolArguments.Text(raw, raw));
    assertThat(args.asJson()).isEqualTo(JsonNodeFactory.instance.textNode(raw));
  }

  @Test
  void malformedJsonNamesLineAndColumn() {
    ParsedArguments.Invalid invalid = invalid("{\n  \"path\": \"a\",\n  \"line\": 01\n}", ArgumentLimits.DEFAULT);
    assertThat(invalid.kind()).isEqualTo(FailureKind.MALFORMED_ARGUMENTS);
    assertThat(invalid.message()).contains("line 3, column");
  }

  @Test
  void trailingTextIsRefusedAtItsPosition() {
    ParsedArguments.Invalid invalid = invalid("{\"a\":1}\n  x", ArgumentLimits.DEFAULT);
    assertThat(invalid.kind()).isEqualTo(FailureKind.MALFORMED_ARGUMENTS);
    assertThat(invalid.message()).contains("after the end of the JSON value").contains("line 2, column 3");
  }

  @Test
  void duplicateKeysAreRefusedNamingTheKey() {
    ParsedArguments.Invalid invalid = invalid("{\"cmd\":\"ls\",\"cmd\":\"rm -rf /\"}", ArgumentLimits.DEFAULT);
    assertThat(invalid.kind()).isEqualTo(FailureKind.MALFORMED_ARGUMENTS);
    assertThat(invalid.message()).contains("\"cmd\"").contains("line 1, column 13");
  }

  @Test
  void escapedLoneSurrogatesAreRefusedWithTheirPosition() {
    ParsedArguments.Invalid invalid = invalid("{\"a\":\n \"x\\uD800\"}", ArgumentLimits.DEFAULT);
    assertThat(invalid.kind()).isEqualTo(FailureKind.MALFORMED_ARGUMENTS);
    assertThat(invalid.message()).contains("unpaired surrogate").contains("line 2, column 2");
  }

  @Test
  void eachLimitIsEnforcedAndNamed() {
    ArgumentLimits limits = new ArgumentLimits(100, 3, 10, 5);
    assertThat(invalid("x".repeat(101), limits).message()).contains("101").contains("limit is 100");
    ParsedArguments.Invalid depth = invalid("[[[[1]]]]", limits);
    assertThat(depth.kind()).isEqualTo(FailureKind.ARGUMENTS_TOO_LARGE);
    assertThat(depth.message()).contains("nested more than 3 levels");
    assertThat(invalid("[\"" + "s".repeat(11) + "\"]", limits).message()).contains("string").contains("10 characters");
    assertThat(invalid("{\"" + "k".repeat(11) + "\":1}", limits).message()).contains("property name");
    assertThat(invalid("[123456]", limits).message()).contains("number").contains("more than 5 characters");
    assertThat(invalid("s".repeat(11), limits).message()).contains("plain text");
    assertThat(invalid("[1e400]", limits).message()).contains("64-bit");
    // just within every limit
    ok("[[\"" + "s".repeat(10) + "\",12345]]", limits);
  }

  @Test
  void limitsCheckTheirValuesAndNameTheWrongOne() {
    assertThatThrownBy(() -> new ArgumentLimits(0, 1, 1, 1)).hasMessageContaining("maxDocumentLength");
    assertThatThrownBy(() -> ArgumentLimits.DEFAULT.withMaxNestingDepth(1001)).hasMessageContaining("at most 1000");
    assertThatThrownBy(() -> ArgumentLimits.DEFAULT.withMaxStringLength(-1)).hasMessageContaining("maxStringLength");
    assertThatThrownBy(() -> ArgumentLimits.DEFAULT.withMaxNumberLength(0)).hasMessageContaining("maxNumberLength");
    assertThatThrownBy(() -> ParsedArguments.parse("{}", null)).hasMessageContaining("limits");
    assertThat(ArgumentLimits.DEFAULT).isEqualTo(new ArgumentLimits(1 << 20, 64, 1 << 20, 100));
  }

  @Test
  void asJsonIsACopyForEveryForm() {
    ToolArguments list = ToolArguments.ofList(List.of("a", "b"));
    assertThat(list.asJson().toString()).isEqualTo("[\"a\",\"b\"]");
    assertThat(ToolArguments.ofText("x").asJson().textValue()).isEqualTo("x");
    ToolArguments json = ok("{\"a\":1}");
    ((com.fasterxml.jackson.databind.node.ObjectNode) json.asJson()).put("b", 2);
    assertThat(json.asJson().has("b")).isFalse();
  }
}
