package dev.toolcall.conversation;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link ModelClient} adapters: blocking, replayed, streaming. */
final class ModelClients {
  private static final Logger log = LoggerFactory.getLogger(ModelClients.class);

  private ModelClients() {}

  static ModelClient blocking(ModelClient.Blocking fn, Executor executor) {
    return new ModelClient() {
      @Override
      public CompletionStage<ModelResponse> complete(ModelRequest request) {
        Objects.requireNonNull(request, "request");
        if (executor == null) {
          return call(fn, request);
        }
        CompletableFuture<ModelResponse> f = new CompletableFuture<>();
        // the thread running fn while it runs; a cancelled stage interrupts it (the request's socket read, say).
        // Both sides hold `running`'s monitor, so no interrupt reaches the thread once fn has returned.
        Thread[] running = new Thread[1];
        onCancel(f, () -> {
          synchronized (running) {
            if (running[0] != null) {
              running[0].interrupt();
            }
          }
        });
        try {
          executor.execute(() -> {
            synchronized (running) {
              if (f.isDone()) {
                return; // cancelled before it started: no request is sent
              }
              running[0] = Thread.currentThread();
            }
            CompletableFuture<ModelResponse> r0;
            try {
              r0 = call(fn, request);
            } finally {
              synchronized (running) {
                running[0] = null;
              }
            }
            if (f.isCancelled()) {
              Thread.interrupted(); // the cancel's interrupt was for the request: not left on a pool thread
            }
            r0.whenComplete((r, t) -> {
              if (t != null) {
                f.completeExceptionally(t);
              } else {
                f.complete(r);
              }
            });
          });
        } catch (RejectedExecutionException e) {
          f.completeExceptionally(ModelException.of(ModelException.Kind.OTHER,
              "model request not started: the executor rejected it", e));
        }
        return f;
      }

      @Override
      public String toString() {
        return "ModelClient.blocking(" + fn + (executor == null ? "" : ", " + executor) + ")";
      }
    };
  }

  private static CompletableFuture<ModelResponse> call(ModelClient.Blocking fn, ModelRequest request) {
    try {
      ModelResponse r = fn.complete(request);
      if (r == null) {
        return CompletableFuture.failedFuture(ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
            "the model client returned no response"));
      }
      return CompletableFuture.completedFuture(r);
    } catch (Exception | Error e) { // a provider SDK may throw NoClassDefFoundError, AssertionError, ...
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return CompletableFuture.failedFuture(ModelException.from(e));
    }
  }

  /** The default {@link ModelClient#stream}: wait for the complete response, then replay it as deltas. */
  static CompletionStage<ModelResponse> replayed(ModelClient client, ModelRequest request,
      Consumer<? super ModelDelta> listener) {
    CompletionStage<ModelResponse> stage;
    try {
      stage = client.complete(request);
    } catch (RuntimeException | Error e) { // a model client is user code
      return CompletableFuture.failedFuture(ModelException.from(e));
    }
    if (stage == null) {
      return CompletableFuture.failedFuture(ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
          "the model client returned no stage"));
    }
    CompletableFuture<ModelResponse> out = new CompletableFuture<>();
    onCancel(out, () -> cancel(stage));
    stage.whenComplete((r, t) -> {
      if (out.isDone()) {
        return; // cancelled: the response is not wanted
      }
      if (t != null) {
        out.completeExceptionally(ModelException.from(t));
      } else if (r == null) {
        out.completeExceptionally(ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
            "the model client returned no response"));
      } else {
        try {
          for (ModelDelta d : ModelDelta.replay(r)) {
            listener.accept(d);
          }
          out.complete(r);
        } catch (Throwable e) { // the listener's failure is reported through the stage
          out.completeExceptionally(listenerFailed(e));
        }
      }
    });
    return out;
  }

  /** Runs {@code action} once {@code stage} is cancelled (completed with a {@link CancellationException}). */
  static void onCancel(CompletableFuture<?> stage, Runnable action) {
    stage.whenComplete((v, t) -> {
      if (t instanceof CancellationException) {
        action.run();
      }
    });
  }

  /**
   * Cancels {@code stage}, a model client's: through {@link CompletableFuture#cancel} when it is one or converts to
   * one (a stage that refuses, or a client that throws, is left to finish; its response is ignored).
   */
  static void cancel(CompletionStage<?> stage) {
    try {
      stage.toCompletableFuture().cancel(true);
    } catch (RuntimeException e) { // UnsupportedOperationException from a minimal stage; a client's own code
      log.debug("the model client's stage could not be cancelled ({})", e.toString());
    }
  }

  /** The delta listener failed: reported through the stage, an Error included (rethrowing would hang the stage). */
  static ModelException listenerFailed(Throwable e) {
    return ModelException.of(ModelException.Kind.OTHER, "the delta listener failed: " + e, e);
  }

  /** {@link ModelClient#streaming}. */
  static final class Streaming implements ModelClient {
    private final StreamingModelClient source;

    Streaming(StreamingModelClient source) {
      this.source = source;
    }

    @Override
    public CompletionStage<ModelResponse> complete(ModelRequest request) {
      return stream(request, d -> {});
    }

    @Override
    public CompletionStage<ModelResponse> stream(ModelRequest request, Consumer<? super ModelDelta> listener) {
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(listener, "listener");
      Sink sink = new Sink(listener);
      CompletableFuture<ModelResponse> out = new CompletableFuture<>();
      CompletionStage<Void> done;
      try {
        done = source.stream(request, sink);
      } catch (RuntimeException | Error e) { // a model client is user code
        return CompletableFuture.failedFuture(sink.failure != null ? sink.failure : ModelException.from(e));
      }
      if (done == null) {
        return CompletableFuture.failedFuture(ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
            "the streaming model client returned no stage"));
      }
      onCancel(out, () -> {
        sink.failure = ModelException.of(ModelException.Kind.OTHER, "the response was cancelled");
        cancel(done);
      });
      done.whenComplete((v, t) -> {
        ModelException failed = sink.failure;
        if (failed != null) {
          out.completeExceptionally(failed);
        } else if (t != null) {
          out.completeExceptionally(ModelException.from(t));
        } else {
          try {
            out.complete(sink.assembler.response());
          } catch (ModelException e) {
            out.completeExceptionally(e);
          }
        }
      });
      return out;
    }

    @Override
    public String toString() {
      return "ModelClient.streaming(" + source + ")";
    }
  }

  /** Feeds the assembler and forwards to the listener until the first failure. */
  private static final class Sink implements Consumer<ModelDelta> {
    final ModelResponseAssembler assembler = new ModelResponseAssembler();
    private final Consumer<? super ModelDelta> listener;
    /** Set once, by the source's thread (or by a cancel); read after the source's stage completed. */
    volatile ModelException failure;

    Sink(Consumer<? super ModelDelta> listener) {
      this.listener = listener;
    }

    @Override
    public void accept(ModelDelta delta) {
      if (failure != null) {
        return;
      }
      List<ModelDelta> out;
      try {
        out = assembler.accept(Objects.requireNonNull(delta, "delta"));
      } catch (ModelException e) {
        failure = e;
        return;
      } catch (NullPointerException e) {
        failure = ModelException.of(ModelException.Kind.MALFORMED_RESPONSE, "malformed model stream: null delta");
        return;
      }
      try {
        for (ModelDelta d : out) {
          listener.accept(d);
        }
      } catch (Throwable e) { // the listener's failure is reported through the stage
        failure = listenerFailed(e);
      }
    }
  }
}
