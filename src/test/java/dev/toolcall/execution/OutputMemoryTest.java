package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Change;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.testing.Heap;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, defect 8, the figures: the heap one finished call retains after printing 1 GB, and the heap 10,000
 * finished calls retain in a scheduler, each measured as used heap after full GCs. Tagged stress: it measures, it
 * does not belong in the unit run. Run:
 * {@code mvn test -DexcludedGroups= -Dgroups=stress -Dtest=OutputMemoryTest}.
 */
@Tag("stress")
class OutputMemoryTest {

  private static final long GB = 1L << 30;

  @Test
  void oneCallThatPrintsAGigabyteRetainsAFewKilobytes() throws Exception {
    String piece = "x".repeat(1023) + "\n"; // 1 KiB lines
    Tool chatty = Tool.of(ToolDefinition.builder("tail_f").build(), inv -> {
      for (long written = 0; written < GB; written += piece.length()) {
        inv.output(piece);
      }
      return ToolResult.of("done");
    });
    EventBus bus = EventBus.create();
    AtomicLong chars = new AtomicLong();
    AtomicLong chunks = new AtomicLong();
    bus.subscribe(new EventListener() {
      @Override
      public void onOutputAppended(ToolCallEvent.OutputAppended e) {
        chars.addAndGet(e.change().chunk().length());
        chunks.incrementAndGet();
      }
    });
    try (ToolScheduler s = ToolScheduler.builder().validator(new TestValidator(chatty)).authorizer(Authorizer.ALLOW_ALL)
        .eventBus(bus).outputFlushInterval(Duration.ofMillis(2)).build()) {
      warm(s);
      long before = Heap.usedAfterGc();
      Batch b = s.schedule("s", List.of(CallRequest.of("big", "tail_f", "{}")));
      List<CallResult> r = b.whenDone().toCompletableFuture().get(10, TimeUnit.MINUTES);
      ToolCall call = b.calls().get(0);
      ToolCallSnapshot end = call.snapshot();
      long after = Heap.usedAfterGc();
      assertThat(r.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      Change.OutputAppended last = (Change.OutputAppended) end.previous().change();
      System.out.printf("1 GiB written: %,d chars in %,d chunks reached listeners, %,d writes dropped; the finished"
          + " call keeps %d versions of %d; retained %,d B%n", chars.get(), chunks.get(), last.droppedTotal(),
          end.versions().size(), end.version() + 1, after - before);
      assertThat(chars.get() + last.droppedTotal() * piece.length()).isEqualTo(GB);
      assertThat(end.versions()).hasSizeLessThan(6);
      assertThat(call).isNotNull();
    }
  }

  @Test
  void oneCallGivenAGigabyteChunkByChunkRetainsAFewKilobytes() throws Exception {
    EventBus bus = EventBus.create();
    AtomicLong chars = new AtomicLong();
    bus.subscribe(new EventListener() {
      @Override
      public void onOutputAppended(ToolCallEvent.OutputAppended e) {
        chars.addAndGet(e.change().chunk().length());
      }
    });
    String chunk = ("y".repeat(1023) + "\n").repeat(64); // 64 KiB
    long before = Heap.usedAfterGc();
    ToolCall call = ToolCall.builder("big", "tail_f").eventBus(bus).build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, dev.toolcall.Reason.NO_PERMISSION_NEEDED);
    long n = GB / chunk.length();
    for (long i = 1; i <= n; i++) {
      call.appendOutput(chunk, i, 0);
    }
    call.complete("done");
    long after = Heap.usedAfterGc();
    ToolCallSnapshot end = call.snapshot();
    System.out.printf("1 GiB appended in %,d chunks of 64 KiB, every one to listeners (%,d chars): the finished call"
        + " keeps %d versions of %,d; retained %,d B%n", n, chars.get(), end.versions().size(), end.version() + 1,
        after - before);
    assertThat(chars.get()).isEqualTo(GB);
    assertThat(end.versions()).hasSize(4);
  }

  @Test
  void tenThousandFinishedCallsRetainTheirIdsOnly() throws Exception {
    Tool echo = Tool.of(ToolDefinition.builder("echo").build(), inv -> {
      for (int i = 0; i < 20; i++) {
        inv.output("line " + i + " of " + inv.arguments().raw() + "\n");
      }
      return ToolResult.of("echo " + inv.arguments().raw());
    });
    try (ToolScheduler s = ToolScheduler.builder().validator(new TestValidator(echo)).authorizer(Authorizer.ALLOW_ALL)
        .executor(Runnable::run).eventBus(EventBus.create()).knownCallsWindow(10_000).build()) {
      warm(s);
      long before = Heap.usedAfterGc();
      List<Batch> batches = new ArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        Batch b = s.schedule("s", List.of(CallRequest.of("c" + i, "echo", "{\"i\":" + i + "}")));
        b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
        batches.add(b);
      }
      batches.clear();
      long after = Heap.usedAfterGc();
      System.out.printf("10,000 finished calls, dropped by the caller: the scheduler retains %,d B (%,d B per call)%n",
          after - before, (after - before) / 10_000);
      assertThat(s.known.size()).as("the window's cap").isEqualTo(10_000);
      assertThat(s.known.calls()).isEmpty();
    }
  }

  /** Loads the classes of a call's path (an unknown tool's call fails at once). */
  private static void warm(ToolScheduler s) throws Exception {
    s.schedule("warm", List.of(CallRequest.of("w", "no_such_tool", "{}")))
        .whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
