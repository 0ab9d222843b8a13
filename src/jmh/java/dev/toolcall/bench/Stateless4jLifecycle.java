package dev.toolcall.bench;

import static dev.toolcall.ToolCallState.COMPLETED;
import static dev.toolcall.ToolCallState.PENDING;

import com.github.oxo42.stateless4j.StateMachine;
import com.github.oxo42.stateless4j.StateMachineConfig;
import com.github.oxo42.stateless4j.delegates.Trace;
import dev.toolcall.ToolCallState;

/**
 * stateless4j 2.6.0: the configuration (all 12 edges of the matrix) is built once per trial and shared, as its
 * documentation suggests; each lifecycle creates a {@link StateMachine} on it and fires four triggers. Its one
 * listener hook is a {@link Trace}, set to a no-op. Not thread-safe: a machine must be confined to one thread.
 */
final class Stateless4jLifecycle implements LifecycleAdapter {

  private static final Trace<ToolCallState, Trigger> NO_OP = new Trace<>() {
    @Override
    public void trigger(Trigger trigger) {}

    @Override
    public void transition(Trigger trigger, ToolCallState source, ToolCallState destination) {}
  };

  private final StateMachineConfig<ToolCallState, Trigger> config = new StateMachineConfig<>();

  Stateless4jLifecycle() {
    for (ToolCallState from : ToolCallState.values()) {
      for (ToolCallState to : ToolCallState.TABLE.successors(from)) {
        config.configure(from).permit(Trigger.into(to), to);
      }
    }
  }

  @Override
  public Object lifecycle() {
    StateMachine<ToolCallState, Trigger> sm = new StateMachine<>(PENDING, config);
    sm.setTrace(NO_OP);
    sm.fire(Trigger.ASK);
    sm.fire(Trigger.APPROVE);
    sm.fire(Trigger.START);
    sm.fire(Trigger.COMPLETE);
    ToolCallState end = sm.getState();
    if (end != COMPLETED) {
      throw LifecycleAdapter.broken("stateless4j", end);
    }
    return end;
  }
}
