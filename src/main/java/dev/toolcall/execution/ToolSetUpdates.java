package dev.toolcall.execution;

import dev.toolcall.event.ToolSetEvent;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The tool set of one {@link ToolScheduler} built on a registry ({@link ToolScheduler#updateTools}): changes are
 * serialised on the registry validator, each one that changes the set swaps the registry for calls validated from
 * then on and publishes one numbered {@link ToolSetEvent}. Thread-safe.
 */
final class ToolSetUpdates {

  private final ToolScheduler sched;
  private long toolSetVersion; // guarded by the registry validator

  ToolSetUpdates(ToolScheduler sched) {
    this.sched = sched;
  }

  /** {@link ToolScheduler#updateTools}, its argument checked. */
  Optional<ToolSetEvent> update(UnaryOperator<ToolRegistry> change) {
    RegistryValidator rv = registryValidator();
    synchronized (rv) {
      ToolRegistry before = rv.registry();
      ToolRegistry after = Objects.requireNonNull(change.apply(before), "change returned null");
      List<String> added = new ArrayList<>();
      List<String> replaced = new ArrayList<>();
      List<String> removed = new ArrayList<>();
      for (String n : after.names()) {
        Tool old = before.names().contains(n) ? before.require(n) : null;
        if (old == null) {
          added.add(n);
        } else if (old != after.require(n)) {
          replaced.add(n);
        }
      }
      for (String n : before.names()) {
        if (!after.names().contains(n)) {
          removed.add(n);
        }
      }
      if (added.isEmpty() && replaced.isEmpty() && removed.isEmpty()) {
        return Optional.empty();
      }
      rv.use(after);
      ToolSetEvent e = new ToolSetEvent(++toolSetVersion, sched.clock.instant(), added, removed, replaced,
          after.definitions());
      sched.bus.publish(e);
      return Optional.of(e);
    }
  }

  RegistryValidator registryValidator() {
    if (sched.validator instanceof RegistryValidator rv) {
      return rv;
    }
    throw new IllegalStateException("this scheduler validates with a validator of its own, not a registry");
  }
}
