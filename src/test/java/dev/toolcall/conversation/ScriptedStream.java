package dev.toolcall.conversation;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A streaming model for turn-loop tests: each request plays the next script on the model's own thread, step by
 * step: a {@link ModelDelta} goes to the sink, a {@link Pause} counts its {@code reached} latch down and blocks until
 * its {@code gate} latch opens (bounded), a {@link ModelException} fails the stream there. When the scripts are
 * used up it answers {@code "script exhausted"}. Wrap it with {@link ModelClient#streaming}. Thread-safe.
 */
final class ScriptedStream implements StreamingModelClient, AutoCloseable {

  /** A point in a script where the model's thread stops until the test releases it. */
  record Pause(CountDownLatch reached, CountDownLatch gate) {
    Pause() {
      this(new CountDownLatch(1), new CountDownLatch(1));
    }

    /** Waits (bounded) until the model's thread has reached this point. */
    void awaitReached() throws InterruptedException {
      if (!reached.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the stream never reached the pause");
      }
    }

    void release() {
      gate.countDown();
    }
  }

  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "scripted-model");
    t.setDaemon(true);
    return t;
  });
  private final ArrayDeque<List<Object>> scripts = new ArrayDeque<>(); // guarded by this
  private final List<ModelRequest> requests = new CopyOnWriteArrayList<>();

  /** Adds the script of the next request. */
  synchronized ScriptedStream then(Object... steps) {
    scripts.add(List.of(steps));
    return this;
  }

  /** Every request received, in order. */
  List<ModelRequest> requests() {
    return List.copyOf(requests);
  }

  @Override
  public CompletionStage<Void> stream(ModelRequest request, Consumer<? super ModelDelta> sink) {
    requests.add(request);
    List<Object> steps;
    synchronized (this) {
      steps = scripts.poll();
    }
    List<Object> script = steps != null ? steps
        : List.of(new ModelDelta.Text("script exhausted"), new ModelDelta.ResponseCompleted(StopReason.END_TURN));
    return CompletableFuture.runAsync(() -> {
      for (Object step : script) {
        if (step instanceof ModelDelta d) {
          sink.accept(d);
        } else if (step instanceof Pause p) {
          p.reached.countDown();
          try {
            if (!p.gate.await(10, TimeUnit.SECONDS)) {
              throw new CompletionException(new AssertionError("the pause was never released"));
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
          }
        } else if (step instanceof ModelException e) {
          throw new CompletionException(e);
        } else {
          throw new IllegalArgumentException("unknown step " + step);
        }
      }
    }, thread);
  }

  static ModelDelta.ToolCallStarted started(String id, String tool) {
    return new ModelDelta.ToolCallStarted(id, tool);
  }

  static ModelDelta.ToolCallArguments args(String id, String fragment) {
    return new ModelDelta.ToolCallArguments(id, fragment);
  }

  static ModelDelta.ToolCallCompleted completed(String id) {
    return new ModelDelta.ToolCallCompleted(id);
  }

  static ModelDelta.ResponseCompleted end(StopReason reason) {
    return new ModelDelta.ResponseCompleted(reason);
  }

  static ModelDelta.Text text(String text) {
    return new ModelDelta.Text(text);
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
