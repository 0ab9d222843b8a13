package dev.toolcall.presentation;

import dev.toolcall.Outcome;
import dev.toolcall.ToolCallState;
import java.util.Objects;

/**
 * The display rules of {@code 02-tool-call-state-implementation-flow.md}, as pure functions.
 *
 * <h2>Effective display state</h2>
 * A result that has arrived overrides the state ({@code getEffectiveDisplayState}: "Priority: Result &gt; State").
 * The seed knows two results, success and error; this library has four {@link Outcome}s, so the rule is generalised
 * to "the state of the outcome": {@link Outcome.Completed} shows {@link ToolCallState#COMPLETED},
 * {@link Outcome.Failed} shows {@link ToolCallState#FAILED}, {@link Outcome.Denied} shows
 * {@link ToolCallState#PERMISSION_DENIED} and {@link Outcome.Cancelled} shows {@link ToolCallState#CANCELLED}.
 * A snapshot's own outcome always agrees with its state, so the rule matters to a UI that learns a result by another
 * path (a transcript, a tool-result message) before the call's state change reaches it.
 *
 * <h2>Content visibility</h2>
 * Whether a call's content (its details, live output, result, nested calls) is shown, by its state and nesting
 * ({@code ShouldShowContentForState(isNested, hasNested)}):
 * <ul>
 *   <li>{@link ToolCallState#PERMISSION_PENDING}, {@link ToolCallState#PERMISSION_APPROVED}: shown (the details a
 *       person decides on);</li>
 *   <li>{@link ToolCallState#PENDING}: shown only for a parent of nested calls that is not itself nested
 *       ({@code hasNested && !isNested});</li>
 *   <li>{@link ToolCallState#RUNNING} and the final states {@link ToolCallState#COMPLETED},
 *       {@link ToolCallState#FAILED}, {@link ToolCallState#CANCELLED}: shown;</li>
 *   <li>{@link ToolCallState#PERMISSION_DENIED}: hidden.</li>
 * </ul>
 * The view model applies visibility to the effective display state (the seed's renderer asked the raw state; the two
 * differ only while a result is ahead of the state, and then the result is what should show).
 */
public final class DisplayRules {

  private DisplayRules() {}

  /**
   * The state to display: the arrived result's state if there is one, else {@code state}.
   *
   * @param state the call's state
   * @param arrivedResult a result the UI already has, or null
   */
  public static ToolCallState effectiveState(ToolCallState state, Outcome arrivedResult) {
    Objects.requireNonNull(state, "state");
    return arrivedResult == null ? state : arrivedResult.state();
  }

  /**
   * Whether to show the content of a call displayed in {@code state}.
   *
   * @param isNested the call runs inside another call
   * @param hasNested other calls run inside this one
   */
  public static boolean showContent(ToolCallState state, boolean isNested, boolean hasNested) {
    switch (Objects.requireNonNull(state, "state")) {
      case PERMISSION_PENDING:
      case PERMISSION_APPROVED:
        return true;
      case PENDING:
        return hasNested && !isNested;
      case PERMISSION_DENIED:
        return false;
      case RUNNING:
      case COMPLETED:
      case FAILED:
      case CANCELLED:
        return true;
      default:
        throw new AssertionError(state);
    }
  }
}
