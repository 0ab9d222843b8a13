package dev.toolcall.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Real threads released together by one start latch: how the tests race, never with sleeps. */
public final class Race {
  private Race() {}

  /** One racer's body; {@code index} is 0 to threads - 1. */
  @FunctionalInterface
  public interface Racer {
    void run(int index) throws Exception;
  }

  /**
   * Runs {@code racer} on {@code threads} threads at once (each waits on one start latch) and waits, at most
   * {@code timeout} per racer, for all to return.
   *
   * @throws java.util.concurrent.ExecutionException with the first racer's failure
   */
  public static void run(int threads, Duration timeout, Racer racer) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int index = t;
        fs.add(pool.submit(() -> {
          start.await();
          racer.run(index);
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : fs) {
        f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
