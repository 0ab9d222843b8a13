package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.FailureKind;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Fuzzing of argument parsing and call validation with random text, random bytes and mutated valid JSON.
 */
class ArgumentParsingProperties {

  private static final Set<FailureKind> PARSE_KINDS =
      EnumSet.of(FailureKind.MALFORMED_ARGUMENTS, FailureKind.ARGUMENTS_TOO_LARGE);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ValidationFixture FIXTURE = new ValidationFixture();
  private static final ArgumentLimits SMALL = new ArgumentLimits(400, 4, 40, 8);

  /**
   * For any text at all (any UTF-16 code units, lone surrogates included), under default and small limits, parsing
   * returns (never throws) either arguments whose raw text is the input unchanged, or a malformed / too-large
   * failure with a model message.
   */
  @Property(tries = 1500)
  void anyTextParsesOrFailsWithoutThrowing(@ForAll("anyText") String raw) {
    checkParse(raw, ArgumentLimits.DEFAULT);
    checkParse(raw, SMALL);
  }

  /** Random bytes decoded as a provider might (UTF-8 with replacement, or Latin-1) never make parsing throw. */
  @Property(tries = 800)
  void anyBytesParseOrFailWithoutThrowing(@ForAll @Size(max = 200) byte[] bytes) {
    checkParse(new String(bytes, StandardCharsets.UTF_8), ArgumentLimits.DEFAULT);
    checkParse(new String(bytes, StandardCharsets.ISO_8859_1), SMALL);
  }

  /**
   * Valid JSON, however it is formatted, parses to the same value (its {@link ToolArguments#asJson()} equals what
   * was written) and keeps its raw text unchanged.
   */
  @Property(tries = 800)
  void validJsonRoundTripsWithTheRawUnchanged(@ForAll("json") JsonNode node, @ForAll boolean pretty)
      throws Exception {
    String raw = pretty ? JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node) : JSON.writeValueAsString(node);
    ParsedArguments parsed = ParsedArguments.parse(raw);
    assertThat(parsed).as(raw).isInstanceOf(ParsedArguments.Ok.class);
    ToolArguments args = ((ParsedArguments.Ok) parsed).arguments();
    assertThat(args.raw()).isSameAs(raw);
    // compared as compact text: a long that fits in an int is read back as an int node
    assertThat(args.asJson().toString()).isEqualTo(node.toString());
  }

  /** Any valid Unicode string sent as a JSON string is read back as exactly that {@link ToolArguments.Text}. */
  @Property(tries = 800)
  void anyStringEncodedAsJsonIsTextWithItsValue(@ForAll("validUnicode") String value) throws Exception {
    String raw = JSON.writeValueAsString(value);
    ParsedArguments parsed = ParsedArguments.parse(raw);
    assertThat(parsed).isEqualTo(new ParsedArguments.Ok(new ToolArguments.Text(raw, value)));
  }

  /**
   * Valid calls mutated (a character deleted, inserted, replaced or duplicated, the text cut, two characters
   * swapped) are validated without throwing: each ends valid, or invalid with one of the four validation kinds and
   * a model message; a mutated call enters the tool only when it is valid.
   */
  @Property(tries = 1500)
  void mutatedCallsNeverThrowAndEnterTheToolOnlyWhenValid(@ForAll("mutatedCalls") String[] call) {
    int before = FIXTURE.counting.entries();
    ToolCallValidation result = FIXTURE.validateThenRun(FIXTURE.validator, call[0], call[1]);
    if (result instanceof ToolCallValidation.Invalid) {
      ToolCallValidation.Invalid invalid = (ToolCallValidation.Invalid) result;
      assertThat(invalid.kind()).isIn(ValidationFixture.VALIDATION_KINDS);
      ValidationFixture.assertModelMessage(invalid.message());
      assertThat(FIXTURE.counting.entries()).isEqualTo(before);
    } else {
      assertThat(((ToolCallValidation.Valid) result).arguments().raw()).isEqualTo(call[1]);
      assertThat(FIXTURE.counting.entries()).isEqualTo(before + 1);
    }
  }

  private static void checkParse(String raw, ArgumentLimits limits) {
    ParsedArguments parsed = ParsedArguments.parse(raw, limits);
    if (parsed instanceof ParsedArguments.Ok) {
      assertThat(((ParsedArguments.Ok) parsed).arguments().raw()).isEqualTo(raw);
    } else {
      ParsedArguments.Invalid invalid = (ParsedArguments.Invalid) parsed;
      assertThat(invalid.kind()).isIn(PARSE_KINDS);
      ValidationFixture.assertModelMessage(invalid.message());
    }
  }

  @Provide
  Arbitrary<String> anyText() {
    Arbitrary<String> jsonish = Arbitraries.strings().withChars("{}[]\":,-0123456789.eE+ \n\\utfnalrsTFN'/*#")
        .ofMaxLength(60);
    Arbitrary<String> all = Arbitraries.strings().all().ofMaxLength(60);
    Arbitrary<String> prefixed = Combinators.combine(Arbitraries.of("{", "[", "\"", "-", "1", "t", "n", "f", " "),
        Arbitraries.oneOf(jsonish, all)).as((a, b) -> a + b);
    return Arbitraries.oneOf(jsonish, all, prefixed);
  }

  @Provide
  Arbitrary<String> validUnicode() {
    return validUnicode(40);
  }

  private static Arbitrary<String> validUnicode(int maxLength) {
    return Arbitraries.strings().all().ofMaxLength(maxLength).filter(ArgumentParsingProperties::wellFormed);
  }

  @Provide
  Arbitrary<JsonNode> json() {
    return jsonValue(3);
  }

  private Arbitrary<JsonNode> jsonValue(int depth) {
    Arbitrary<JsonNode> scalar = Arbitraries.oneOf(
        validUnicode(40).map(NODES::textNode),
        Arbitraries.integers().map(i -> (JsonNode) NODES.numberNode(i)),
        Arbitraries.longs().map(l -> (JsonNode) NODES.numberNode(l)),
        Arbitraries.doubles().between(-1e300, 1e300).map(d -> (JsonNode) NODES.numberNode(d)),
        Arbitraries.of(NODES.booleanNode(true), NODES.booleanNode(false), NODES.nullNode()));
    if (depth == 0) {
      return scalar;
    }
    Arbitrary<JsonNode> array = jsonValue(depth - 1).list().ofMaxSize(4).map(list -> {
      ArrayNode a = NODES.arrayNode();
      list.forEach(a::add);
      return a;
    });
    Arbitrary<JsonNode> object = Combinators.combine(validUnicode(8).list().ofMaxSize(4),
        jsonValue(depth - 1).list().ofSize(4)).as((keys, values) -> {
          ObjectNode o = NODES.objectNode();
          for (int i = 0; i < keys.size(); i++) {
            o.set(keys.get(i), values.get(i));
          }
          return (JsonNode) o;
        });
    return Arbitraries.oneOf(scalar, array, object);
  }

  @Provide
  Arbitrary<String[]> mutatedCalls() {
    List<String[]> seeds = List.of(
        new String[] {"edit_file", "{\"path\":\"a.txt\",\"content\":\"x\\ny\",\"mode\":\"append\",\"line\":7,"
            + "\"tags\":[\"t\"],\"options\":{\"force\":true}}"},
        new String[] {"shell", "ls -la /tmp"},
        new String[] {"shell", "\"git \\\"status\\\"\""},
        new String[] {"multi", "[\"a\",\"b\",\"c\"]"},
        new String[] {"no_args", ""},
        new String[] {"read_file", "{\"path\":\"\\uD83D\\uDE00.txt\"}"});
    Arbitrary<Character> noise = Arbitraries.oneOf(Arbitraries.chars().all(),
        Arbitraries.of('{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', '\uD800', '\uFEFF', '\u200B', ' '));
    return Combinators.combine(Arbitraries.of(seeds), Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 10_000), noise, Arbitraries.integers().between(1, 3))
        .as((seed, op, at, ch, times) -> {
          String text = seed[1];
          for (int n = 0; n < times; n++) {
            text = mutate(text, op, at + n * 7, ch);
          }
          return new String[] {seed[0], text};
        });
  }

  private static String mutate(String s, int op, int at, char ch) {
    if (s.isEmpty()) {
      return String.valueOf(ch);
    }
    int i = at % s.length();
    switch (op) {
      case 0:
        return s.substring(0, i) + s.substring(i + 1);
      case 1:
        return s.substring(0, i) + ch + s.substring(i);
      case 2:
        return s.substring(0, i) + ch + s.substring(i + 1);
      case 3:
        return s.substring(0, i);
      case 4:
        return s.substring(0, i) + s.charAt(i) + s.substring(i);
      default:
        int j = (i + 1) % s.length();
        char[] c = s.toCharArray();
        char t = c[i];
        c[i] = c[j];
        c[j] = t;
        return new String(c);
    }
  }

  private static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
