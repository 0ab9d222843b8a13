package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;

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

/** The default timer: order, cancel, the wake-up rule, a failing task, close. No assertion depends on timing. */
class DelaySchedulerTest {
  final DelayScheduler.ThreadDelayScheduler timer = new DelayScheduler.ThreadDelayScheduler();

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
    Random rnd = new Random(42);
    int n = 400;
    long[] lo = new long[n];
    long[] hi = new long[n];
    List<Integer> ran = new CopyOnWriteArrayList<>();
    ConcurrentHashMap<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
    boolean[] cancelled = new boolean[n];
    List<DelayScheduler.Handle> handles = new ArrayList<>();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    timer.schedule(() -> {
      holding.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, 0);
    assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < n; i++) {
      int id = i;
      long delay = TimeUnit.MICROSECONDS.toNanos(rnd.nextInt(20_000));
      lo[i] = System.nanoTime() + delay;
      handles.add(timer.schedule(() -> {
        ran.add(id);
        runs.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      }, delay));
      hi[i] = System.nanoTime() + delay;
    }
    for (int i = 0; i < n; i++) {
      if (rnd.nextBoolean()) {
        cancelled[i] = true;
        handles.get(i).cancel();
        handles.get(i).cancel(); // harmless twice
      }
    }
    CountDownLatch sentinel = new CountDownLatch(1);
    timer.schedule(sentinel::countDown, TimeUnit.MILLISECONDS.toNanos(40));
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
        assertThat(hi[later] < lo[first]).as("%s ran before %s although its deadline is certainly later", first, later)
            .isFalse();
      }
    }
  }

  /** A task due before the thread's planned wake-up wakes it, also when the far task was cancelled meanwhile. */
  @Test
  void anEarlierDeadlineWakesTheSleepingThread() throws Exception {
    DelayScheduler.Handle far = timer.schedule(() -> {}, TimeUnit.HOURS.toNanos(1));
    CountDownLatch soon = new CountDownLatch(1);
    timer.schedule(soon::countDown, TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(soon.await(30, TimeUnit.SECONDS)).isTrue();
    far.cancel();
    CountDownLatch again = new CountDownLatch(1);
    timer.schedule(again::countDown, 0);
    assertThat(again.await(30, TimeUnit.SECONDS)).isTrue();
  }

  /** A task that throws is logged; the thread goes on with the next. */
  @Test
  void aThrowingTaskDoesNotStopTheTimer() throws Exception {
    timer.schedule(() -> {
      throw new IllegalStateException("boom");
    }, 0);
    CountDownLatch next = new CountDownLatch(1);
    timer.schedule(next::countDown, TimeUnit.MILLISECONDS.toNanos(2));
    assertThat(next.await(30, TimeUnit.SECONDS)).isTrue();
  }

  /** Close drops pending tasks and ends the thread; arming afterwards returns NONE and starts nothing. */
  @Test
  void closeEndsTheThreadAndDropsTasks() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    timer.schedule(ran::incrementAndGet, TimeUnit.HOURS.toNanos(1));
    timer.close();
    assertThat(timer.awaitTermination(TimeUnit.SECONDS.toNanos(30))).isTrue();
    assertThat(timer.schedule(ran::incrementAndGet, 0)).isSameAs(DelayScheduler.NONE);
    assertThat(ran).hasValue(0);
  }
}
