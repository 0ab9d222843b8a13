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

  /**
   * The live objects per class (instances and bytes, after a full GC), from the JVM's class histogram, by class
   * name. Subtract two of them to see what a set of objects retains, class by class.
   */
  public static java.util.Map<String, long[]> histogram() throws Exception {
    javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
    String text = (String) server.invoke(new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
        "gcClassHistogram", new Object[] {new String[0]}, new String[] {String[].class.getName()});
    java.util.Map<String, long[]> out = new java.util.HashMap<>();
    for (String line : text.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 4 && f[0].endsWith(":")) {
        out.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
      }
    }
    return out;
  }

  /**
   * The classes whose live bytes grew from {@code before} to {@code after}, largest first, each as
   * {@code bytes/per B  instances/per  class} for {@code per} units (per pending approval, say), above
   * {@code minBytesPer}; and the total.
   */
  public static String growth(java.util.Map<String, long[]> before, java.util.Map<String, long[]> after, int per,
      double minBytesPer) {
    java.util.List<java.util.Map.Entry<String, long[]>> grown = new java.util.ArrayList<>();
    long total = 0;
    for (java.util.Map.Entry<String, long[]> e : after.entrySet()) {
      long[] b = before.getOrDefault(e.getKey(), new long[2]);
      long dn = e.getValue()[0] - b[0];
      long db = e.getValue()[1] - b[1];
      total += db;
      if ((double) db / per >= minBytesPer) {
        grown.add(java.util.Map.entry(e.getKey(), new long[] {dn, db}));
      }
    }
    grown.sort((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]));
    StringBuilder sb = new StringBuilder();
    for (java.util.Map.Entry<String, long[]> e : grown) {
      sb.append(String.format("%8.1f B %6.2f  %s%n", (double) e.getValue()[1] / per, (double) e.getValue()[0] / per,
          e.getKey()));
    }
    sb.append(String.format("%8.1f B total per unit%n", (double) total / per));
    return sb.toString();
  }
}
