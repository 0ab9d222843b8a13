package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ToolCallValidatorTest {

  private final ValidationFixture fixture = new ValidationFixture();
  private final ToolCallValidator validator = fixture.validator;

  private ToolCallValidation.Valid valid(String tool, String raw) {
    ToolCallValidation v = validator.validate(tool, raw);
    assertThat(v).as("%s(%s)", tool, raw).isInstanceOf(ToolCallValidation.Valid.class);
    assertThat(v.isValid()).isTrue();
    return (ToolCallValidation.Valid) v;
  }

  private ToolCallValidation.Invalid invalid(String tool, String raw) {
    ToolCallValidation v = validator.validate(tool, raw);
    assertThat(v).as("%s(%s)", tool, raw).isInstanceOf(ToolCallValidation.Invalid.class);
    ToolCallValidation.Invalid invalid = (ToolCallValidation.Invalid) v;
    ValidationFixture.assertModelMessage(invalid.message());
    return invalid;
  }

  @Test
  void validCallsCarryTheToolTheDefinitionAndTheRawArguments() {
    String raw = "{ \"path\": \"a.txt\",\n \"content\": \"hi\", \"line\": 3 }";
    ToolCallValidation.Valid v = valid("edit_file", raw);
    assertThat(v.tool().name()).isEqualTo("edit_file");
    assertThat(v.definition().name()).isEqualTo("edit_file");
    assertThat(v.arguments().raw()).isEqualTo(raw);
  }

  @Test
  void everyArgumentFormIsCheckedAgainstTheSchema() {
    assertThat(valid("shell", "ls -la").arguments()).isEqualTo(new ToolArguments.Text("ls -la", "ls -la"));
    assertThat(valid("shell", "\"ls -la\"").arguments()).isInstanceOf(ToolArguments.Text.class);
    assertThat(valid("multi", "[\"a\",\"b\"]").arguments()).isInstanceOf(ToolArguments.TextList.class);
    assertThat(valid("no_args", "").arguments().raw()).isEmpty();
    assertThat(valid("no_args", null).arguments().asJson().isObject()).isTrue();
    assertThat(invalid("multi", "[]").kind()).isEqualTo(FailureKind.INVALID_ARGUMENTS);
  }

  @Test
  void schemaProblemsNameThePointerAndWhatWasExpected() {
    ToolCallValidation.Invalid invalid = invalid("edit_file",
        "{\"path\":1,\"content\":\"b\",\"mode\":\"x\",\"options\":{\"force\":\"yes\"}}");
    assertThat(invalid.kind()).isEqualTo(FailureKind.INVALID_ARGUMENTS);
    assertThat(invalid.message())
        .startsWith("The arguments do not match the parameters schema of tool 'edit_file' (3 problems):")
        .contains("- at /path: integer found, string expected")
        .contains("- at /mode:").contains("overwrite")
        .contains("- at /options/force: string found, boolean expected");
    assertThat(invalid("edit_file", "{\"path\":\"a\"}").message())
        .contains("(1 problem)").contains("at the top level: required property 'content' not found");
    assertThat(invalid.toOutcome()).isEqualTo(new Outcome.Failed(FailureKind.INVALID_ARGUMENTS, invalid.message()));
  }

  @Test
  void problemsAreCappedAtTen() {
    StringBuilder raw = new StringBuilder("{\"path\":\"a\",\"content\":\"b\"");
    for (int i = 0; i < 25; i++) {
      raw.append(",\"extra").append(i).append("\":").append(i);
    }
    ToolCallValidation.Invalid invalid = invalid("edit_file", raw.append('}').toString());
    assertThat(invalid.message()).contains("(25 problems)").contains("- and 15 more");
    assertThat(invalid.message().lines().filter(l -> l.startsWith("- at "))).hasSize(10);
  }

  @Test
  void aFloodOfProblemsIsCountedAsALowerBound() {
    ToolCallValidation.Invalid invalid = invalid("multi", "[" + "1,".repeat(5000) + "1]");
    assertThat(invalid.message()).contains("(100 or more problems)").contains("- and 90 or more")
        .contains("- at /0: integer found, string expected");
  }

  /** The error cap must not change what applicators decide: anyOf, oneOf and not only look at emptiness. */
  @Test
  void cappingErrorsKeepsApplicatorSemantics() {
    String many = "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}";
    ToolRegistry r = ToolRegistry.of(
        fixture.counting.tool("any_of", "{\"anyOf\":[" + many + ",{\"type\":\"object\"}]}"),
        fixture.counting.tool("not_many", "{\"not\":" + many + "}"),
        fixture.counting.tool("one_of", "{\"oneOf\":[" + many + ",{\"type\":\"array\",\"maxItems\":3}]}"));
    ToolCallValidator v = ToolCallValidator.of(r);
    String numbers = "[" + "1,".repeat(500) + "1]";
    assertThat(v.validate("any_of", numbers).isValid()).isFalse();
    assertThat(v.validate("any_of", "{}").isValid()).isTrue();
    assertThat(v.validate("not_many", numbers).isValid()).isTrue();
    assertThat(v.validate("not_many", "[\"a\"]").isValid()).isFalse();
    assertThat(v.validate("one_of", numbers).isValid()).isFalse();
    assertThat(v.validate("one_of", "[1]").isValid()).isTrue();
    assertThat(v.validate("one_of", "[\"a\"]").isValid()).isFalse();
  }

  @Test
  void plainTextForAnObjectToolSaysItWasNotJson() {
    assertThat(invalid("read_file", "src/Main.java").message())
        .contains("string found, object expected").contains("were not JSON");
    assertThat(invalid("read_file", "\"src/Main.java\"").message()).doesNotContain("were not JSON");
  }

  @Test
  void theToolIsCheckedBeforeTheArguments() {
    assertThat(invalid("nope", "{").kind()).isEqualTo(FailureKind.UNKNOWN_TOOL);
    assertThat(invalid("reed_file", "{}").message()).contains("Did you mean read_file?");
    assertThat(invalid(null, "{}").kind()).isEqualTo(FailureKind.UNKNOWN_TOOL);
  }

  @Test
  void parsedArgumentsAreRevalidated() {
    assertThat(validator.validate("shell", ToolArguments.ofText("ls")).isValid()).isTrue();
    ToolCallValidation replaced = validator.validate("edit_file", ToolArguments.ofList(List.of("a")));
    assertThat(replaced).isInstanceOf(ToolCallValidation.Invalid.class);
    assertThat(((ToolCallValidation.Invalid) replaced).kind()).isEqualTo(FailureKind.INVALID_ARGUMENTS);
    assertThat(validator.validate("no_args", (ToolArguments) null).isValid()).isTrue();
    assertThat(((ToolCallValidation.Invalid) validator.validate("x", ToolArguments.empty())).kind())
        .isEqualTo(FailureKind.UNKNOWN_TOOL);
  }

  @Test
  void customLimitsApply() {
    ToolCallValidator strict = ToolCallValidator.of(fixture.registry, ArgumentLimits.DEFAULT.withMaxDocumentLength(10));
    assertThat(strict.limits().maxDocumentLength()).isEqualTo(10);
    assertThat(strict.registry()).isSameAs(fixture.registry);
    ToolCallValidation v = strict.validate("shell", "echo hello world");
    assertThat(((ToolCallValidation.Invalid) v).kind()).isEqualTo(FailureKind.ARGUMENTS_TOO_LARGE);
  }

  /** One validator shared by 8 threads started together gives every thread the same answers. */
  @Test
  void oneValidatorServesManyThreads() throws Exception {
    String[][] calls = {{"edit_file", "{\"path\":\"a\",\"content\":\"b\"}"}, {"edit_file", "{\"path\":1}"},
        {"shell", "ls"}, {"reed_file", "{}"}, {"multi", "[\"a\""}, {"multi", "[\"a\"]"}};
    List<String> expected = new ArrayList<>();
    for (String[] c : calls) {
      expected.add(validator.validate(c[0], c[1]).toString());
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<String>>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(pool.submit(() -> {
          start.await();
          List<String> seen = new ArrayList<>();
          for (int round = 0; round < 50; round++) {
            for (String[] c : calls) {
              seen.add(validator.validate(c[0], c[1]).toString());
            }
          }
          return seen;
        }));
      }
      start.countDown();
      for (Future<List<String>> f : futures) {
        List<String> seen = f.get(30, TimeUnit.SECONDS);
        for (int i = 0; i < seen.size(); i++) {
          assertThat(seen.get(i)).isEqualTo(expected.get(i % calls.length));
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(fixture.counting.entries()).isZero();
  }
}
