package dev.toolcall.permission;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.testing.PermissionFakes.ManualTimer;
import dev.toolcall.testing.PermissionFakes.ManualTicker;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared set-up of the permission tests: a fake ticker, a fake deadline scheduler and a settable clock. */
final class PermissionTestSupport {
  final ManualTicker ticker = new ManualTicker();
  final ManualTimer deadlines = new ManualTimer(ticker);
  final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final AtomicInteger ids = new AtomicInteger();

  static final ToolDefinition SHELL = ToolDefinition.builder("shell").build();
  static final ToolDefinition READ = ToolDefinition.builder("read_file").readOnly(true).build();
  static final ToolDefinition WRITE = ToolDefinition.builder("write_file").build();
  static final ToolDefinition FREE = ToolDefinition.builder("clock").requiresApproval(false).readOnly(true).build();

  PermissionService.Builder service() {
    return PermissionService.builder().ticker(ticker).clock(clock).timer(deadlines)
        .defaultTimeout(Duration.ofSeconds(30));
  }

  ToolCall call(String tool, String command) {
    return call(tool, command, "s1");
  }

  ToolCall call(String tool, String command, String session) {
    return ToolCall.builder("c" + ids.incrementAndGet(), tool).sessionId(session).ticker(ticker).clock(clock)
        .arguments(ToolArguments.ofText(command)).build();
  }

  static ToolCallSnapshot now(CompletionStage<ToolCallSnapshot> stage) {
    try {
      return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("stage did not complete", e);
    }
  }

  static boolean isDone(CompletionStage<?> stage) {
    return stage.toCompletableFuture().isDone();
  }

  /** A clock the test moves. */
  static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
