package dev.toolcall;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link ToolCall#buildAll}: several new calls stored together and then published, so that a batch's first versions
 * are one write ({@link CallStore#createAll}) and no call's version 0 is published before it is stored. No state.
 */
final class CallCreation {

  private CallCreation() {}

  static void buildAll(List<ToolCall.Builder> builders, ToolCall[] calls) {
    Objects.requireNonNull(builders, "builders");
    Objects.requireNonNull(calls, "calls");
    int n = builders.size();
    if (calls.length != n) {
      throw new IllegalArgumentException("calls must have one entry per builder: " + n + ", was " + calls.length);
    }
    ToolCall[] made = new ToolCall[n];
    List<ToolCallSnapshot> firsts = new ArrayList<>(n);
    CallStore store = n == 0 ? null : Objects.requireNonNull(builders.get(0), "builders[0]").storeOrNull();
    for (int i = 0; i < n; i++) {
      ToolCall.Builder b = Objects.requireNonNull(builders.get(i), "builders[" + i + "]");
      if (b.storeOrNull() != store) {
        throw new IllegalArgumentException("builders must share one store: builders[" + i + "] has "
            + b.storeOrNull() + ", builders[0] " + store);
      }
      made[i] = b.unwritten(false); // stored here, together: never with a first change
      firsts.add(made[i].snapshot());
    }
    boolean[] stored = new boolean[n];
    RuntimeException failure = null;
    if (store == null) {
      java.util.Arrays.fill(stored, true);
    } else {
      try {
        store.createAll(firsts, stored);
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    for (int i = 0; i < n; i++) { // in order, each after the write that stored it
      calls[i] = stored[i] ? made[i].started() : null;
    }
    if (failure != null) {
      throw failure;
    }
  }
}
