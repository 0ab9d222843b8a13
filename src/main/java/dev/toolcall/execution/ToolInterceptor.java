package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolArguments;
import dev.toolcall.ToolResult;
import java.util.Objects;

/**
 * A hook around each tool run, inside RUNNING (what agent CLIs call PreToolUse / PostToolUse). {@link #before} runs
 * before the first attempt and may block the call or replace its arguments (the replacement is validated against
 * the tool's schema again); {@link #after} runs on a successful result and may transform or redact it;
 * {@link #afterFailure} sees every failure of a call whose tool was started (a tool error, a crash, a timeout, no
 * result) and may rewrite the message the model gets. A call blocked before it ran, invalid arguments, a denial or a
 * cancellation do not reach {@code after} or {@code afterFailure}: events carry those.
 *
 * <p>Interceptors run in registration order on the scheduler's threads and must be thread-safe. One that throws
 * fails the call ({@link dev.toolcall.FailureKind#BLOCKED} before, {@link dev.toolcall.FailureKind#TOOL_ERROR}
 * after), and the exception is logged.
 */
public interface ToolInterceptor {

  /** A name for logs and for the record of who changed arguments. */
  default String name() {
    return getClass().getSimpleName();
  }

  /** Decides before the tool runs; by default lets it run unchanged. */
  default Before before(ToolCallSnapshot call) {
    return Before.PROCEED;
  }

  /** Sees a successful result; by default returns it unchanged. */
  default ToolResult after(ToolCallSnapshot call, ToolResult result) {
    return result;
  }

  /**
   * Sees a failure of a call whose tool was started, before the call ends FAILED; by default returns
   * {@code message} unchanged. Runs once per call, after the last attempt (retried attempts are not failures of the
   * call). One that throws leaves the message as it was and is logged.
   *
   * @param call the call, still RUNNING
   * @param kind why it failed
   * @param message the message for the model, as the scheduler (or an earlier interceptor) wrote it
   * @return the message for the model; never null
   */
  default String afterFailure(ToolCallSnapshot call, FailureKind kind, String message) {
    return message;
  }

  /** What {@link #before} decided. */
  sealed interface Before permits Proceed, Block, Replace {
    /** Run the tool as it is. */
    Before PROCEED = new Proceed();

    /** Fail the call with {@code reason} for the model, without running the tool. */
    static Before block(String reason) {
      return new Block(reason);
    }

    /** Run the tool with {@code arguments} instead (validated again). */
    static Before replace(ToolArguments arguments) {
      return new Replace(arguments);
    }
  }

  /** Run the tool unchanged. */
  record Proceed() implements Before {}

  /**
   * Do not run the tool.
   *
   * @param reason for the model
   */
  record Block(String reason) implements Before {
    /** Checks the reason. */
    public Block {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * Run with other arguments.
   *
   * @param arguments the replacement
   */
  record Replace(ToolArguments arguments) implements Before {
    /** Checks the arguments. */
    public Replace {
      Objects.requireNonNull(arguments, "arguments");
    }
  }
}
