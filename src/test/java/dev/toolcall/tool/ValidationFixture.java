package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.FailureKind;
import dev.toolcall.testing.CountingTools;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** A registry of counting tools with typical schemas, and the checks every validation test applies. */
final class ValidationFixture {

  static final String EDIT_FILE_SCHEMA = "{\"type\":\"object\",\"properties\":{"
      + "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
      + "\"content\":{\"type\":\"string\"},"
      + "\"mode\":{\"enum\":[\"overwrite\",\"append\"]},"
      + "\"line\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000},"
      + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":3},"
      + "\"options\":{\"type\":\"object\",\"properties\":{\"force\":{\"type\":\"boolean\"}},"
      + "\"additionalProperties\":false}},"
      + "\"required\":[\"path\",\"content\"],\"additionalProperties\":false}";

  /** Kinds validation may answer with. */
  static final Set<FailureKind> VALIDATION_KINDS = EnumSet.of(FailureKind.UNKNOWN_TOOL,
      FailureKind.MALFORMED_ARGUMENTS, FailureKind.ARGUMENTS_TOO_LARGE, FailureKind.INVALID_ARGUMENTS);

  /** Text that must never reach the model: stack frames, exception and library class names. */
  private static final Pattern LEAK = Pattern.compile(
      "(?i)exception|\\tat |\\bat (java|com|dev|org)\\.|com\\.fasterxml|jackson|networknt|java\\.lang|"
          + "streamreadfeature|jsonreadfeature|`[a-z]+\\.[a-z]|[a-z]\\$[a-z]+exception");

  final CountingTools counting = new CountingTools();
  final ToolRegistry registry = ToolRegistry.builder()
      .register(counting.tool("edit_file", EDIT_FILE_SCHEMA))
      .register(counting.tool("shell", "{\"type\":\"string\",\"minLength\":1}"))
      .register(counting.tool("multi", "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1}"))
      .register(counting.tool("no_args", "{\"type\":\"object\",\"additionalProperties\":false}"))
      .register(counting.tool("read_file", "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
          + "\"required\":[\"path\"]}"))
      .build();
  final ToolCallValidator validator = ToolCallValidator.of(registry);

  /** What a scheduler does: validate, and enter the tool only when valid. */
  ToolCallValidation validateThenRun(ToolCallValidator v, String tool, String raw) {
    ToolCallValidation result = v.validate(tool, raw);
    if (result instanceof ToolCallValidation.Valid) {
      ToolCallValidation.Valid valid = (ToolCallValidation.Valid) result;
      valid.tool().execute(new TestInvocation(valid.arguments(), tool)).toCompletableFuture().join();
    }
    return result;
  }

  /** Every failure message must be for the model: non-empty, bounded, no stack trace, no raw control characters. */
  static void assertModelMessage(String message) {
    assertThat(message).isNotBlank();
    assertThat(LEAK.matcher(message).find()).as("no stack trace or class names in: %s", message).isFalse();
    assertThat(message.chars().filter(c -> c < 0x20 && c != '\n').count())
        .as("no control characters in: %s", message).isZero();
    assertThat(message.length()).as("bounded message").isLessThan(4000);
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }

  /** The smallest invocation a counting tool needs. */
  static final class TestInvocation implements ToolInvocation {
    private final ToolArguments arguments;
    private final String tool;

    TestInvocation(ToolArguments arguments, String tool) {
      this.arguments = arguments;
      this.tool = tool;
    }

    @Override
    public ToolArguments arguments() {
      return arguments;
    }

    @Override
    public String callId() {
      return "call-1";
    }

    @Override
    public String sessionId() {
      return "session-1";
    }

    @Override
    public String toolName() {
      return tool;
    }

    @Override
    public int attempt() {
      return 1;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void onCancel(Runnable action) {}

    @Override
    public void output(String chunk) {}
  }
}
