package dev.toolcall.tool;

import static dev.toolcall.FailureKind.ARGUMENTS_TOO_LARGE;
import static dev.toolcall.FailureKind.INVALID_ARGUMENTS;
import static dev.toolcall.FailureKind.MALFORMED_ARGUMENTS;
import static dev.toolcall.FailureKind.UNKNOWN_TOOL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.toolcall.FailureKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The corpus of malformed and invalid tool calls: each case names a tool, the raw argument text and the failure
 * kind it must end with. For every case: nothing is thrown, the result is that kind, the message is written for the
 * model (non-empty, no stack trace or class names, no control characters), and no tool is entered.
 *
 * <p>Duplicate property names are refused as malformed (decision documented in {@code docs/tools.md}): with "last
 * one wins" a person could approve one value while the tool reads another.
 */
class ArgumentCorpusTest {

  private static final ValidationFixture FIXTURE = new ValidationFixture();
  private static final String E = "edit_file";

  record Case(String name, String tool, String raw, FailureKind kind) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> corpus() {
    List<Case> c = new ArrayList<>();
    truncations(c);
    syntax(c);
    unicode(c);
    controlCharacters(c);
    limits(c);
    schema(c);
    unknownTools(c);
    return c;
  }

  /** Every proper prefix of well-formed objects and arrays. */
  private static void truncations(List<Case> c) {
    String[] docs = {
        "{\"path\":\"a.txt\",\"content\":\"hi \\\"there\\\"\",\"line\":3,\"tags\":[\"x\",\"y\"]}",
        "{\"path\":\"b\",\"content\":\"\\u00e9\\n\",\"options\":{\"force\":true},\"mode\":\"append\"}",
        "[\"one\",\"two\",[null,false,-1.5e3]]",
    };
    for (String doc : docs) {
      for (int n = 1; n < doc.length(); n++) {
        c.add(new Case("truncated to " + n + ": " + doc.substring(0, n), E, doc.substring(0, n),
            MALFORMED_ARGUMENTS));
      }
    }
  }

  private static void syntax(List<Case> c) {
    String[][] m = {
        {"trailing comma in object", "{\"path\":\"a\",\"content\":\"b\",}"},
        {"trailing comma in array", "{\"path\":\"a\",\"content\":\"b\",\"tags\":[\"x\",]}"},
        {"trailing comma top array", "[\"a\",]"},
        {"line comment", "{\"path\":\"a\", // why\n\"content\":\"b\"}"},
        {"block comment", "{/* c */\"path\":\"a\",\"content\":\"b\"}"},
        {"hash comment", "{# c\n\"path\":\"a\",\"content\":\"b\"}"},
        {"comment after value", "{\"path\":\"a\",\"content\":\"b\"} // done"},
        {"single quoted key", "{'path':\"a\",\"content\":\"b\"}"},
        {"single quoted value", "{\"path\":'a',\"content\":\"b\"}"},
        {"unquoted key", "{path:\"a\",content:\"b\"}"},
        {"NaN", "{\"path\":\"a\",\"content\":\"b\",\"line\":NaN}"},
        {"Infinity", "{\"path\":\"a\",\"content\":\"b\",\"line\":Infinity}"},
        {"-Infinity", "{\"path\":\"a\",\"content\":\"b\",\"line\":-Infinity}"},
        {"plus sign", "{\"path\":\"a\",\"content\":\"b\",\"line\":+1}"},
        {"leading zero", "{\"path\":\"a\",\"content\":\"b\",\"line\":01}"},
        {"hex number", "{\"path\":\"a\",\"content\":\"b\",\"line\":0x10}"},
        {"leading dot", "{\"path\":\"a\",\"content\":\"b\",\"line\":.5}"},
        {"trailing dot", "{\"path\":\"a\",\"content\":\"b\",\"line\":1.}"},
        {"bare exponent", "{\"path\":\"a\",\"content\":\"b\",\"line\":1e}"},
        {"minus alone", "{\"path\":\"a\",\"content\":\"b\",\"line\":-}"},
        {"invalid escape x", "{\"path\":\"a\\x41\",\"content\":\"b\"}"},
        {"invalid escape short u", "{\"path\":\"\\u12\",\"content\":\"b\"}"},
        {"invalid escape non-hex u", "{\"path\":\"\\uZZZZ\",\"content\":\"b\"}"},
        {"invalid escape a", "{\"path\":\"\\a\",\"content\":\"b\"}"},
        {"escaped single quote", "{\"path\":\"\\'\",\"content\":\"b\"}"},
        {"byte order mark", "\uFEFF{\"path\":\"a\",\"content\":\"b\"}"},
        {"byte order mark after space", " \uFEFF{\"path\":\"a\",\"content\":\"b\"}"},
        {"two objects", "{\"path\":\"a\",\"content\":\"b\"}{\"path\":\"a\",\"content\":\"b\"}"},
        {"text after object", "{\"path\":\"a\",\"content\":\"b\"} thanks"},
        {"NUL after object", "{\"path\":\"a\",\"content\":\"b\"}\u0000"},
        {"em space after object", "{\"path\":\"a\",\"content\":\"b\"}\u2003"},
        {"missing colon", "{\"path\" \"a\",\"content\":\"b\"}"},
        {"missing comma", "{\"path\":\"a\" \"content\":\"b\"}"},
        {"missing comma in array", "[\"a\" \"b\"]"},
        {"empty member", "{,}"},
        {"empty element", "[,]"},
        {"double comma", "[\"a\",,\"b\"]"},
        {"unclosed string", "{\"path\":\"a,\"content\":\"b\"}"},
        {"unclosed object", "{\"path\":\"a\",\"content\":\"b\""},
        {"unclosed array", "[\"a\",\"b\""},
        {"mismatched close", "{\"path\":\"a\",\"content\":\"b\"]"},
        {"close only", "}"},
        {"array close only", "]"},
        {"True capitalised inside", "{\"path\":\"a\",\"content\":\"b\",\"options\":{\"force\":True}}"},
        {"undefined", "{\"path\":\"a\",\"content\":undefined}"},
        {"key not a string", "{1:\"a\"}"},
        {"python dict", "{'path': 'a', 'content': 'b'}"},
        {"markdown fenced", "```json\n{\"path\":\"a\"}\n```"}, // plain text -> schema, see below
        {"string then text", "\"ls\" -la"},
        {"duplicate key", "{\"path\":\"a\",\"content\":\"b\",\"path\":\"/etc/passwd\"}"},
        {"duplicate key nested", "{\"path\":\"a\",\"content\":\"b\",\"options\":{\"force\":false,\"force\":true}}"},
        {"duplicate key same value", "{\"path\":\"a\",\"path\":\"a\",\"content\":\"b\"}"},
        {"duplicate key differing escapes", "{\"path\":\"a\",\"p\\u0061th\":\"b\",\"content\":\"b\"}"},
        {"newline inside string", "{\"path\":\"a\nb\",\"content\":\"b\"}"},
        {"tab inside string", "{\"path\":\"a\tb\",\"content\":\"b\"}"},
    };
    for (String[] s : m) {
      FailureKind kind = s[0].equals("markdown fenced") ? INVALID_ARGUMENTS : MALFORMED_ARGUMENTS;
      c.add(new Case(s[0], E, s[1], kind));
    }
  }

  private static void unicode(List<Case> c) {
    String[][] m = {
        {"lone high surrogate in string", "{\"path\":\"a\uD800\",\"content\":\"b\"}"},
        {"lone low surrogate in string", "{\"path\":\"a\uDC00\",\"content\":\"b\"}"},
        {"reversed surrogate pair", "{\"path\":\"\uDC00\uD800\",\"content\":\"b\"}"},
        {"lone surrogate in key", "{\"pa\uD834th\":\"a\",\"content\":\"b\"}"},
        {"lone surrogate outside string", "{\"path\":\"a\",\"content\":\"b\"}\uD800"},
        {"escaped lone high surrogate", "{\"path\":\"\\uD800\",\"content\":\"b\"}"},
        {"escaped lone low surrogate", "{\"path\":\"\\uDC00\",\"content\":\"b\"}"},
        {"escaped reversed pair", "{\"path\":\"\\uDC00\\uD800\",\"content\":\"b\"}"},
        {"escaped high then letter", "{\"path\":\"\\uD83Dx\",\"content\":\"b\"}"},
        {"escaped high at end", "{\"path\":\"x\\uDBFF\",\"content\":\"b\"}"},
        {"escaped lone surrogate in key", "{\"\\uD800\":1}"},
        {"escaped lone surrogate in text form", "\"\\uD800\""},
        {"lone surrogate in plain text", "ls \uD800"},
        {"lone low surrogate in plain text", "\uDFFF"},
        {"escaped lone surrogate in list", "[\"a\",\"\\uDABC\"]"},
    };
    for (String[] s : m) {
      c.add(new Case(s[0], s[0].contains("list") ? "multi" : s[0].contains("text") ? "shell" : E, s[1],
          MALFORMED_ARGUMENTS));
    }
  }

  /** Every C0 control character unescaped inside a JSON string, and a few in plain text. */
  private static void controlCharacters(List<Case> c) {
    for (char ch = 0; ch < 0x20; ch++) {
      c.add(new Case(String.format("raw U+%04X inside a string", (int) ch), E,
          "{\"path\":\"a" + ch + "b\",\"content\":\"b\"}", MALFORMED_ARGUMENTS));
    }
    for (char ch : new char[] {0, 1, 7, 8, 0x1B, 0x7F}) {
      c.add(new Case(String.format("U+%04X in plain text", (int) ch), "shell", "ls" + ch + " -la",
          MALFORMED_ARGUMENTS));
    }
    c.add(new Case("ANSI escape in plain text", "shell", "echo \u001B[2J", MALFORMED_ARGUMENTS));
    c.add(new Case("NUL alone", "shell", "\u0000", MALFORMED_ARGUMENTS));
  }

  private static void limits(List<Case> c) {
    int mib = 1 << 20;
    c.add(new Case("document over 1 MiB of JSON", E,
        "{\"path\":\"a\",\"content\":\"" + "x".repeat(mib) + "\"}", ARGUMENTS_TOO_LARGE));
    c.add(new Case("document over 1 MiB of plain text", "shell", "y".repeat(mib + 1), ARGUMENTS_TOO_LARGE));
    c.add(new Case("document over 1 MiB of whitespace", E, " ".repeat(mib + 1), ARGUMENTS_TOO_LARGE));
    c.add(new Case("number with 101 digits", E, "{\"path\":\"a\",\"content\":\"b\",\"line\":1" + "0".repeat(100)
        + "}", ARGUMENTS_TOO_LARGE));
    c.add(new Case("fraction with 200 digits", E, "{\"line\":0." + "3".repeat(200) + "}", ARGUMENTS_TOO_LARGE));
    c.add(new Case("top-level number with 500 digits", E, "9".repeat(500), ARGUMENTS_TOO_LARGE));
    c.add(new Case("1e400", E, "{\"path\":\"a\",\"content\":\"b\",\"line\":1e400}", ARGUMENTS_TOO_LARGE));
    c.add(new Case("-1e400", E, "{\"path\":\"a\",\"content\":\"b\",\"line\":-1e400}", ARGUMENTS_TOO_LARGE));
    c.add(new Case("top-level 1E999", E, "1E999", ARGUMENTS_TOO_LARGE));
    for (int depth : new int[] {65, 100, 1000, 100_000}) {
      c.add(new Case("arrays nested " + depth, E, "[".repeat(depth) + "]".repeat(depth), ARGUMENTS_TOO_LARGE));
      c.add(new Case("objects nested " + depth, E, "{\"a\":".repeat(depth) + "1" + "}".repeat(depth),
          ARGUMENTS_TOO_LARGE));
    }
    c.add(new Case("unclosed nesting 100000", E, "[".repeat(100_000), ARGUMENTS_TOO_LARGE));
  }

  private static void schema(List<Case> c) {
    String[][] m = {
        {"path is a number", "{\"path\":1,\"content\":\"b\"}"},
        {"path is true", "{\"path\":true,\"content\":\"b\"}"},
        {"path is null", "{\"path\":null,\"content\":\"b\"}"},
        {"path is an array", "{\"path\":[\"a\"],\"content\":\"b\"}"},
        {"path is an object", "{\"path\":{},\"content\":\"b\"}"},
        {"path is empty", "{\"path\":\"\",\"content\":\"b\"}"},
        {"path is too long", "{\"path\":\"" + "p".repeat(201) + "\",\"content\":\"b\"}"},
        {"content is a number", "{\"path\":\"a\",\"content\":2}"},
        {"missing path", "{\"content\":\"b\"}"},
        {"missing content", "{\"path\":\"a\"}"},
        {"missing both", "{}"},
        {"blank arguments for required properties", ""},
        {"whitespace arguments for required properties", " \n\t "},
        {"extra property", "{\"path\":\"a\",\"content\":\"b\",\"force\":true}"},
        {"extra property with look-alike name", "{\"path\":\"a\",\"content\":\"b\",\"Path\":\"c\"}"},
        {"extra property with zero-width name", "{\"path\":\"a\",\"content\":\"b\",\"pa\u200Bth\":\"c\"}"},
        {"enum violation", "{\"path\":\"a\",\"content\":\"b\",\"mode\":\"delete\"}"},
        {"enum wrong case", "{\"path\":\"a\",\"content\":\"b\",\"mode\":\"Append\"}"},
        {"enum as number", "{\"path\":\"a\",\"content\":\"b\",\"mode\":1}"},
        {"integer below minimum", "{\"path\":\"a\",\"content\":\"b\",\"line\":0}"},
        {"negative integer", "{\"path\":\"a\",\"content\":\"b\",\"line\":-5}"},
        {"integer as fraction", "{\"path\":\"a\",\"content\":\"b\",\"line\":1.5}"},
        {"integer as string", "{\"path\":\"a\",\"content\":\"b\",\"line\":\"3\"}"},
        {"huge integer fits digits", "{\"path\":\"a\",\"content\":\"b\",\"line\":" + "9".repeat(60) + "}"},
        {"tags too many", "{\"path\":\"a\",\"content\":\"b\",\"tags\":[\"1\",\"2\",\"3\",\"4\"]}"},
        {"tags item wrong type", "{\"path\":\"a\",\"content\":\"b\",\"tags\":[\"1\",2]}"},
        {"tags not an array", "{\"path\":\"a\",\"content\":\"b\",\"tags\":\"x\"}"},
        {"nested extra property", "{\"path\":\"a\",\"content\":\"b\",\"options\":{\"force\":true,\"x\":1}}"},
        {"nested wrong type", "{\"path\":\"a\",\"content\":\"b\",\"options\":{\"force\":\"yes\"}}"},
        {"root is an array", "[1,2]"},
        {"root is a list of strings", "[\"a\",\"b\"]"},
        {"root is a string", "\"a.txt\""},
        {"root is a number", "42"},
        {"root is null", "null"},
        {"root is true", "true"},
        {"root is plain text", "write a.txt hello"},
        {"root is capitalised True", "True"},
        {"many problems", "{\"path\":1,\"content\":2,\"mode\":3,\"line\":\"x\",\"tags\":5,\"a\":1,\"b\":2,\"c\":3,"
            + "\"d\":4,\"e\":5,\"f\":6,\"g\":7}"},
    };
    for (String[] s : m) {
      c.add(new Case(s[0], E, s[1], INVALID_ARGUMENTS));
    }
    String[][] others = {
        {"shell", "blank arguments to a string tool", ""},
        {"shell", "object to a string tool", "{\"command\":\"ls\"}"},
        {"shell", "number to a string tool", "42"},
        {"shell", "empty JSON string", "\"\""},
        {"shell", "list to a string tool", "[\"ls\",\"-la\"]"},
        {"multi", "empty list", "[]"},
        {"multi", "list with a number", "[\"a\",1]"},
        {"multi", "string to a list tool", "\"a\""},
        {"multi", "plain text to a list tool", "a b c"},
        {"no_args", "argument to a tool without parameters", "{\"a\":1}"},
        {"no_args", "plain text to a tool without parameters", "go"},
        {"no_args", "null to a tool without parameters", "null"},
        {"read_file", "path missing", "{\"file\":\"a\"}"},
        {"read_file", "path null", "{\"path\":null}"},
    };
    for (String[] s : others) {
      c.add(new Case(s[1], s[0], s[2], INVALID_ARGUMENTS));
    }
  }

  private static void unknownTools(List<Case> c) {
    String[][] m = {
        {"typo", "reed_file"},
        {"no name", ""},
        {"upper case", "EDIT_FILE"},
        {"zero-width space", "edit\u200B_file"},
        {"trailing zero-width joiner", "edit_file\u200D"},
        {"full-width letters", "\uFF45\uFF44\uFF49\uFF54_file"},
        {"Cyrillic e", "\u0435dit_file"},
        {"space", "edit file"},
        {"leading space", " edit_file"},
        {"trailing newline", "edit_file\n"},
        {"namespaced", "functions.edit_file"},
        {"NUL in name", "edit_file\u0000"},
        {"ANSI escape in name", "\u001B[31medit_file"},
        {"lone surrogate in name", "edit\uD800_file"},
        {"very long name", "x".repeat(100_000)},
        {"unrelated", "launch_missiles"},
    };
    for (String[] s : m) {
      c.add(new Case("unknown tool: " + s[0], s[1], "{\"path\":\"a\",\"content\":\"b\"}", UNKNOWN_TOOL));
    }
    c.add(new Case("unknown tool: null name", null, "{}", UNKNOWN_TOOL));
    c.add(new Case("unknown tool with malformed arguments", "nope", "{", UNKNOWN_TOOL));
  }

  static Stream<Case> cases() {
    return corpus().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyCaseFailsWithItsKindAndAModelMessageWithoutEnteringTheTool(Case k) {
    int before = FIXTURE.counting.entries();
    AtomicReference<ToolCallValidation> result = new AtomicReference<>();

    assertThatCode(() -> result.set(FIXTURE.validateThenRun(FIXTURE.validator, k.tool(), k.raw())))
        .doesNotThrowAnyException();

    assertThat(result.get()).isInstanceOf(ToolCallValidation.Invalid.class);
    ToolCallValidation.Invalid invalid = (ToolCallValidation.Invalid) result.get();
    assertThat(invalid.kind()).as(invalid.message()).isEqualTo(k.kind());
    ValidationFixture.assertModelMessage(invalid.message());
    assertThat(invalid.toOutcome().messageForModel()).contains(invalid.message());
    assertThat(FIXTURE.counting.entries()).as("tool entered").isEqualTo(before);
  }

  @Test
  void theCorpusHasAtLeast200CasesOfEveryKind() {
    List<Case> all = corpus();
    assertThat(all).hasSizeGreaterThanOrEqualTo(200);
    assertThat(all).extracting(Case::kind)
        .contains(MALFORMED_ARGUMENTS, ARGUMENTS_TOO_LARGE, INVALID_ARGUMENTS, UNKNOWN_TOOL);
  }

  @AfterAll
  static void noToolWasEverEntered() {
    assertThat(FIXTURE.counting.entries()).isZero();
  }
}
