package dev.toolcall;

import dev.toolcall.testing.Logs;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The default timer: order, cancel, the wake-up rule, a failing task, close, and a clock that wraps. No assertion
 * depends on timing.
 */
class HeapDeadlineTimerTest {
  HeapDeadlineTimer timer = new HeapDeadlineTimer(Ticker.system());

  @AfterEach
  void close() {
    timer.close();
  }

  /**
   * Random delays, a random half cancelled: every kept task runs exactly once, no cancelled task runs, and no task
   * runs before one whose deadline is certainly earlier (deadline bounds taken around each arming). The timer
   * thread is held in a blocking task while the tasks are armed and cancelled, so none can run before its cancel.
   * A sentinel armed last with a longer delay than all proves the others are done: the timer runs in deadline order.
   */
  @Test
  void runsKeptTasksOnceInDeadlineOrderAndNeverACancelledOne() throws Exception {
    keptTasksRunOnceInDeadlineOrder(Ticker.system());
  }

  /**
   * The same with a ticker whose readings start 10 ms before {@link Long#MAX_VALUE}: the deadlines wrap past it while
   * the tasks are armed, and order, exactly-once and cancel still hold, because ticks are only compared by their
   * difference.
   */
  @Test
  void aTickerThatWrapsAroundKeepsTheOrder() throws Exception {
    long base = System.nanoTime();
    long offset = Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(10);
    Ticker nearMax = () -> System.nanoTime() - base + offset;
    timer.close();
    timer = new HeapDeadlineTimer(nearMax);
    keptTasksRunOnceInDeadlineOrder(nearMax);
  }

  /** A task is never run before its delay has passed on the timer's ticker, also across the wrap of the ticker. */
  @Test
  void aTaskNeverRunsEarlyAcrossTheWrap() throws Exception {
    long offset = Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(15);
    long[] base = new long[1];
    Ticker nearMax = () -> System.nanoTime() - base[0] + offset;
    timer.close();
    timer = new HeapDeadlineTimer(nearMax);
    base[0] = System.nanoTime(); // the timer's thread starts in schedule, after this write
    long armed = nearMax.read();
    long[] ranAt = new long[1];
    CountDownLatch done = new CountDownLatch(1);
    timer.schedule(() -> {
      ranAt[0] = nearMax.read();
      done.countDown();
    }, Duration.ofMillis(30));
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(armed > 0 && ranAt[0] < 0).as("the reading wrapped past Long.MAX_VALUE").isTrue();
    assertThat(ranAt[0] - armed).as("ticks waited").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
  }

  /** Delays are clamped: negative runs at once, a huge one is accepted and never runs before close. */
  @Test
  void delaysAreClamped() throws Exception {
    assertThat(DeadlineTimer.clampedNanos(Duration.ofSeconds(-5))).isZero();
    assertThat(DeadlineTimer.clampedNanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(DeadlineTimer.MAX_DELAY_NANOS);
    assertThat(DeadlineTimer.clampedNanos(Duration.ofNanos(DeadlineTimer.MAX_DELAY_NANOS + 1)))
        .isEqualTo(DeadlineTimer.MAX_DELAY_NANOS);
    assertThat(DeadlineTimer.clampedNanos(Duration.ofMillis(3))).isEqualTo(3_000_000L);
    AtomicInteger ranFar = new AtomicInteger();
    timer.schedule(ranFar::incrementAndGet, Duration.ofSeconds(Long.MAX_VALUE));
    CountDownLatch now = new CountDownLatch(1);
    timer.schedule(now::countDown, Duration.ofSeconds(-1));
    assertThat(now.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(ranFar).hasValue(0);
  }

  private void keptTasksRunOnceInDeadlineOrder(Ticker clock) throws Exception {
    Random rnd = new Random(42);
    int n = 400;
    long[] lo = new long[n];
    long[] hi = new long[n];
    List<Integer> ran = new CopyOnWriteArrayList<>();
    ConcurrentHashMap<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
    boolean[] cancelled = new boolean[n];
    List<DeadlineTimer.Handle> handles = new ArrayList<>();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    timer.schedule(() -> {
      holding.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, Duration.ZERO);
    assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < n; i++) {
      int id = i;
      long delay = TimeUnit.MICROSECONDS.toNanos(rnd.nextInt(20_000));
      lo[i] = clock.read() + delay;
      handles.add(timer.schedule(() -> {
        ran.add(id);
        runs.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      }, Duration.ofNanos(delay)));
      hi[i] = clock.read() + delay;
    }
    for (int i = 0; i < n; i++) {
      if (rnd.nextBoolean()) {
        cancelled[i] = true;
        handles.get(i).cancel();
        handles.get(i).cancel(); // harmless twice
      }
    }
    CountDownLatch sentinel = new CountDownLatch(1);
    timer.schedule(sentinel::countDown, Duration.ofMillis(40));
    release.countDown();
    assertThat(sentinel.await(30, TimeUnit.SECONDS)).isTrue();

    for (int i = 0; i < n; i++) {
      assertThat(runs.containsKey(i)).as("task %s ran (cancelled: %s)", i, cancelled[i]).isEqualTo(!cancelled[i]);
      if (!cancelled[i]) {
        assertThat(runs.get(i)).as("runs of %s", i).hasValue(1);
      }
    }
    for (int a = 0; a < ran.size(); a++) {
      for (int b = a + 1; b < ran.size(); b++) {
        int first = ran.get(a);
        int later = ran.get(b);
        assertThat(hi[later] - lo[first] < 0).as("%s ran before %s although its deadline is certainly later", first, later)
            .isFalse();
      }
    }
  }

  /** A task due before the thread's planned wake-up wakes it, also when the far task was cancelled meanwhile. */
  @Test
  void anEarlierDeadlineWakesTheSleepingThread() throws Exception {
    DeadlineTimer.Handle far = timer.schedule(() -> {}, Duration.ofHours(1));
    CountDownLatch soon = new CountDownLatch(1);
    timer.schedule(soon::countDown, Duration.ofMillis(1));
    assertThat(soon.await(30, TimeUnit.SECONDS)).isTrue();
    far.cancel();
    CountDownLatch again = new CountDownLatch(1);
    timer.schedule(again::countDown, Duration.ZERO);
    assertThat(again.await(30, TimeUnit.SECONDS)).isTrue();
  }

  /** A task that throws is logged; the thread goes on with the next. */
  @Test
  void aThrowingTaskDoesNotStopTheTimer() throws Exception {
    timer.schedule(() -> {
      throw new IllegalStateException("boom");
    }, Duration.ZERO);
    CountDownLatch next = new CountDownLatch(1);
    timer.schedule(next::countDown, Duration.ofMillis(2));
    assertThat(next.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(Logs.of(HeapDeadlineTimer.class)).anySatisfy(e -> assertThat(e.line()).contains("boom"));
  }

  /** Close drops pending tasks and ends the thread; arming afterwards returns NONE and starts nothing. */
  @Test
  void closeEndsTheThreadAndDropsTasks() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    timer.schedule(ran::incrementAndGet, Duration.ofHours(1));
    timer.close();
    assertThat(timer.awaitTermination(TimeUnit.SECONDS.toNanos(30))).isTrue();
    assertThat(timer.schedule(ran::incrementAndGet, Duration.ZERO)).isSameAs(DeadlineTimer.Handle.NONE);
    assertThat(ran).hasValue(0);
  }
}
