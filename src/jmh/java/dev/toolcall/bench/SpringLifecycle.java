package dev.toolcall.bench;

import static dev.toolcall.ToolCallState.COMPLETED;
import static dev.toolcall.ToolCallState.PENDING;

import dev.toolcall.ToolCallState;
import java.util.EnumSet;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.statemachine.StateMachine;
import org.springframework.statemachine.StateMachineEventResult;
import org.springframework.statemachine.config.StateMachineBuilder;
import org.springframework.statemachine.config.StateMachineFactory;
import org.springframework.statemachine.config.builders.StateMachineStateConfigurer;
import org.springframework.statemachine.config.configurers.StateConfigurer;
import org.springframework.statemachine.listener.StateMachineListener;
import org.springframework.statemachine.listener.StateMachineListenerAdapter;
import reactor.core.publisher.Mono;

/**
 * Spring Statemachine 4.0.1, without an application context (its {@link StateMachineBuilder}), all 12 edges as
 * external transitions and every terminal state as an end state. Two ways a user would create machines:
 * <ul>
 *   <li>{@code reuseFactory}: {@link StateMachineBuilder.Builder#createFactory()} once per trial, then per lifecycle
 *       {@link StateMachineFactory#getStateMachine()} (the cheapest supported way to get a fresh machine);</li>
 *   <li>otherwise: configure and {@code build()} a machine per lifecycle, as the builder's documentation shows.</li>
 * </ul>
 * Per lifecycle: add one no-op {@link StateMachineListener}, start it, send four events through the reactive API
 * (the blocking {@code sendEvent(E)} is deprecated in 4.x) and check each was accepted.
 */
final class SpringLifecycle implements LifecycleAdapter {

  private static final StateMachineListener<ToolCallState, Trigger> NO_OP = new StateMachineListenerAdapter<>() {};

  private final StateMachineFactory<ToolCallState, Trigger> factory;

  SpringLifecycle(boolean reuseFactory) {
    this.factory = reuseFactory ? configured().createFactory() : null;
  }

  static StateMachineBuilder.Builder<ToolCallState, Trigger> configured() {
    try {
      StateMachineBuilder.Builder<ToolCallState, Trigger> b = StateMachineBuilder.builder();
      b.configureConfiguration().withConfiguration().autoStartup(false);
      StateConfigurer<ToolCallState, Trigger> states =
          b.configureStates().withStates().initial(PENDING).states(EnumSet.allOf(ToolCallState.class));
      for (ToolCallState s : ToolCallState.values()) {
        if (s.isTerminal()) {
          states.end(s);
        }
      }
      var transitions = b.configureTransitions();
      for (ToolCallState from : ToolCallState.values()) {
        for (ToolCallState to : ToolCallState.TABLE.successors(from)) {
          transitions.withExternal().source(from).target(to).event(Trigger.into(to));
        }
      }
      return b;
    } catch (Exception e) {
      throw new IllegalStateException("Spring Statemachine configuration failed", e);
    }
  }

  @Override
  public Object lifecycle() {
    StateMachine<ToolCallState, Trigger> sm =
        factory != null ? factory.getStateMachine() : configured().build();
    sm.addStateListener(NO_OP);
    sm.startReactively().block();
    send(sm, Trigger.ASK);
    send(sm, Trigger.APPROVE);
    send(sm, Trigger.START);
    send(sm, Trigger.COMPLETE);
    ToolCallState end = sm.getState().getId();
    if (end != COMPLETED) {
      throw LifecycleAdapter.broken("Spring Statemachine", end);
    }
    return end;
  }

  private static void send(StateMachine<ToolCallState, Trigger> sm, Trigger t) {
    StateMachineEventResult<ToolCallState, Trigger> r =
        sm.sendEvent(Mono.just(MessageBuilder.withPayload(t).build())).blockLast();
    if (r == null || r.getResultType() != StateMachineEventResult.ResultType.ACCEPTED) {
      throw LifecycleAdapter.broken("Spring Statemachine", t + " -> " + r);
    }
  }
}
