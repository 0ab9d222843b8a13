package dev.toolcall.bench;

import static dev.toolcall.ToolCallState.PENDING;
import static dev.toolcall.ToolCallState.PERMISSION_APPROVED;
import static dev.toolcall.ToolCallState.PERMISSION_PENDING;
import static dev.toolcall.ToolCallState.RUNNING;

import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.event.EventBus;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Where our lifecycle's time and bytes go: the same call (fixed time source) stopped after 0 to 4 steps, with one
 * no-op subscriber or none. With {@code -prof gc}, the difference between two step counts is what one step costs;
 * the difference between the subscriber settings is what publishing costs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ToolCallBreakdownBenchmark {

  /** Whether the shared bus has one no-op inline subscriber. */
  @Param({"true", "false"})
  public boolean subscriber;

  private EventBus bus;

  @org.openjdk.jmh.annotations.Setup
  public void setUp() {
    bus = subscriber ? ToolCallLifecycle.newBusWithNoOpSubscriber() : EventBus.create();
  }

  private ToolCall create() {
    return ToolCall.builder("call_0", "read_file").eventBus(bus).clock(ToolCallLifecycle.FIXED_CLOCK)
        .ticker(ToolCallLifecycle.FIXED_TICKER).build();
  }

  @Benchmark
  public Object steps0Create() {
    return create();
  }

  @Benchmark
  public Object steps1() {
    ToolCall c = create();
    c.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
    return c;
  }

  @Benchmark
  public Object steps2() {
    ToolCall c = create();
    c.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
    c.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE);
    return c;
  }

  @Benchmark
  public Object steps3() {
    ToolCall c = create();
    c.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
    c.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE);
    c.transition(PERMISSION_APPROVED, RUNNING, Reason.STARTED);
    return c;
  }

  @Benchmark
  public Object steps4Complete() {
    ToolCall c = create();
    c.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
    c.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE);
    c.transition(PERMISSION_APPROVED, RUNNING, Reason.STARTED);
    c.complete("ok");
    return c;
  }
}
