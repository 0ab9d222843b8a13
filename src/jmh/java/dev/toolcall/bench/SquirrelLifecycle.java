package dev.toolcall.bench;

import static dev.toolcall.ToolCallState.COMPLETED;
import static dev.toolcall.ToolCallState.PENDING;

import dev.toolcall.ToolCallState;
import org.squirrelframework.foundation.fsm.StateMachine;
import org.squirrelframework.foundation.fsm.StateMachineBuilder;
import org.squirrelframework.foundation.fsm.StateMachineBuilderFactory;
import org.squirrelframework.foundation.fsm.impl.AbstractStateMachine;

/**
 * squirrel-foundation 0.3.10: the builder (all 12 edges as external transitions) is made once per trial, as its
 * documentation recommends (building is expensive, creating machines from a builder is not); each lifecycle creates
 * a machine with {@code newStateMachine}, adds one no-op transition-complete listener, and fires four events.
 */
final class SquirrelLifecycle implements LifecycleAdapter {

  /** The typed machine squirrel instantiates by reflection; it must be public with a public no-arg constructor. */
  public static final class Machine extends AbstractStateMachine<Machine, ToolCallState, Trigger, Object> {
    public Machine() {}
  }

  private static final StateMachine.TransitionCompleteListener<Machine, ToolCallState, Trigger, Object> NO_OP =
      event -> {};

  private final StateMachineBuilder<Machine, ToolCallState, Trigger, Object> builder =
      StateMachineBuilderFactory.create(Machine.class, ToolCallState.class, Trigger.class, Object.class);

  SquirrelLifecycle() {
    for (ToolCallState from : ToolCallState.values()) {
      for (ToolCallState to : ToolCallState.TABLE.successors(from)) {
        builder.externalTransition().from(from).to(to).on(Trigger.into(to));
      }
    }
  }

  @Override
  public Object lifecycle() {
    Machine sm = builder.newStateMachine(PENDING);
    sm.addTransitionCompleteListener(NO_OP);
    sm.fire(Trigger.ASK);
    sm.fire(Trigger.APPROVE);
    sm.fire(Trigger.START);
    sm.fire(Trigger.COMPLETE);
    ToolCallState end = sm.getCurrentState();
    if (end != COMPLETED) {
      throw LifecycleAdapter.broken("squirrel", end);
    }
    return end;
  }
}
