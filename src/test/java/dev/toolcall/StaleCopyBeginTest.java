package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.event.EventBus;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.ToolScheduler;
import dev.toolcall.runtime.RuntimeSnapshot;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A call whose approval was made and stored through another copy of it (on a shared store a row can be loaded twice
 * in one runtime): when its run begins, its own copy still says PERMISSION_PENDING. It must read the store's version
 * and run the tool once, not try an illegal PERMISSION_PENDING -&gt; RUNNING change again and again (which held the
 * call and its permit for good).
 */
class StaleCopyBeginTest {

  /** Rows in memory with compare-and-set and reads, as a store shared by runtimes answers them. */
  static final class ReadableStore implements CallStore {
    final Map<String, ToolCallSnapshot> rows = new ConcurrentHashMap<>();

    @Override
    public boolean create(ToolCallSnapshot first) {
      return rows.putIfAbsent(first.identity().sessionId() + "/" + first.callId(), first) == null;
    }

    @Override
    public boolean compareAndSet(ToolCallSnapshot expected, ToolCallSnapshot next) {
      boolean[] won = new boolean[1];
      rows.computeIfPresent(expected.identity().sessionId() + "/" + expected.callId(), (k, cur) -> {
        if (cur.version() != expected.version()) {
          return cur;
        }
        won[0] = true;
        return next;
      });
      return won[0];
    }

    @Override
    public Optional<CallRecord> read(String sessionId, String callId) {
      return Optional.ofNullable(rows.get(sessionId + "/" + callId)).map(RuntimeSnapshot::storedEntry);
    }
  }

  @Test
  void aRunWhoseCopyMissedTheStoredApprovalReadsItAndRunsOnce() throws Exception {
    ReadableStore store = new ReadableStore();
    AtomicInteger runs = new AtomicInteger();
    Tool shell = Tool.of(ToolDefinition.builder("shell").build(), inv -> {
      runs.incrementAndGet();
      return ToolResult.of("ran");
    });
    EventBus bus = EventBus.create();
    try (ToolScheduler sched = ToolScheduler.builder().registry(ToolRegistry.of(shell)).eventBus(bus)
        .callStore(store).executor(Runnable::run).authorizer((call, def) -> {
          call.transition(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
          ToolCall other = ToolCall.restore(call.snapshot(), bus, Ticker.system(), store); // the row loaded again
          ToolCallSnapshot approved = other.transition(ToolCallState.PERMISSION_PENDING,
              ToolCallState.PERMISSION_APPROVED, Reason.APPROVED_ONCE).snapshot();
          return CompletableFuture.completedFuture(approved);
        }).build()) {
      Batch batch = sched.schedule("s", List.of(CallRequest.of("c1", "shell", "{}")));
      ToolCallSnapshot end = batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS).get(0).snapshot();
      assertThat(end.state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(runs).hasValue(1);
      assertThat(store.rows.get("s/c1").state()).isEqualTo(ToolCallState.COMPLETED);
    }
  }
}
