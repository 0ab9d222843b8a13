package dev.toolcall.testing;

/** Heap measurements for the memory tests (tagged stress): used heap after full collections. */
public final class Heap {
  private Heap() {}

  /** The least used heap over five full GCs, each given a moment to finish: a measurement, not a race. */
  public static long usedAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(50);
      best = Math.min(best, rt.totalMemory() - rt.freeMemory());
    }
    return best;
  }
}
