package dev.toolcall.testing;

import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Tools that misbehave on purpose, each counting how often it was entered. */
public final class HostileTools {
  private HostileTools() {}

  /** A tool with an entry counter. */
  public static final class Counting {
    public final AtomicInteger entries = new AtomicInteger();
    public final AtomicInteger exits = new AtomicInteger();
    public final Tool tool;

    public Counting(ToolDefinition def, Tool.Blocking body) {
      this.tool = Tool.of(def, inv -> {
        entries.incrementAndGet();
        try {
          return body.run(inv);
        } finally {
          exits.incrementAndGet();
        }
      });
    }
  }

  public static ToolDefinition.Builder def(String name) {
    return ToolDefinition.builder(name).description(name).requiresApproval(false);
  }

  public static Counting echo(String name, boolean readOnly) {
    return new Counting(def(name).readOnly(readOnly).build(), inv -> ToolResult.of(name + ":" + inv.arguments().raw()));
  }

  public static Counting throwing(String name, Exception e) {
    return new Counting(def(name).build(), inv -> {
      throw e;
    });
  }

  public static Counting returningNull(String name) {
    return new Counting(def(name).build(), inv -> null);
  }

  public static Counting throwingError(String name, Error error) {
    return new Counting(def(name).build(), inv -> {
      throw error;
    });
  }

  /** Blocks on {@code release} (interruptibly). */
  public static Counting blocking(String name, CountDownLatch entered, CountDownLatch release) {
    return new Counting(def(name).build(), inv -> {
      entered.countDown();
      release.await();
      return ToolResult.of("released");
    });
  }

  /** Ignores interrupts: spins until {@code stop} is set, then returns a (late) result. */
  public static Counting spinning(String name, CountDownLatch entered, AtomicBoolean stop) {
    return new Counting(def(name).build(), inv -> {
      entered.countDown();
      while (!stop.get()) {
        Thread.onSpinWait();
      }
      return ToolResult.of("late");
    });
  }

  /** Catches the interrupt and returns a result anyway, late. */
  public static Counting lateAfterInterrupt(String name, CountDownLatch entered) {
    return new Counting(def(name).build(), inv -> {
      entered.countDown();
      try {
        new CountDownLatch(1).await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        return ToolResult.of("result after interrupt");
      }
      return ToolResult.of("never");
    });
  }

  /** Fails transiently {@code failures} times, then succeeds. */
  public static Counting flaky(String name, int failures, int maxAttempts) {
    AtomicInteger n = new AtomicInteger();
    return new Counting(def(name).retryPolicy(new dev.toolcall.tool.RetryPolicy(maxAttempts,
        java.time.Duration.ofMillis(1), 2.0, java.time.Duration.ofMillis(5), 0.5)).build(), inv -> {
          if (n.incrementAndGet() <= failures) {
            throw new TransientToolException("rate limited (attempt " + inv.attempt() + ")");
          }
          return ToolResult.of("ok on attempt " + inv.attempt());
        });
  }

  /** Writes {@code writes} chunks as fast as it can, then returns. */
  public static Counting flooding(String name, int writes) {
    return new Counting(def(name).readOnly(true).build(), inv -> {
      for (int i = 0; i < writes; i++) {
        inv.output("line " + i + "\n");
      }
      return ToolResult.of("flooded");
    });
  }

  /** Starts its own thread that outlives the call (the tool's own business); returns at once. */
  public static Counting startingThread(String name, CountDownLatch threadRelease) {
    return new Counting(def(name).build(), inv -> {
      Thread t = new Thread(() -> {
        try {
          threadRelease.await();
        } catch (InterruptedException ignored) {
          Thread.currentThread().interrupt();
        }
      }, "hostile-own-thread");
      t.setDaemon(true);
      t.start();
      return ToolResult.of("started");
    });
  }

  public static ToolException toolError(String msg) {
    return new ToolException(msg);
  }
}
