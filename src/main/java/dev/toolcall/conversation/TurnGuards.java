package dev.toolcall.conversation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The turn's guards as pure functions of {@link TurnLimits} and what the turn has done so far: no state, no clock,
 * thread-safe. The turn loop asks before each tool call ({@link #checkToolCall}), before each model request
 * ({@link #checkRoundTrip}), and after each transient model failure ({@link #modelRetryDelay}).
 */
public final class TurnGuards {

  /** Reads one JSON value and refuses text after it ({@code {"a":1} x} is not the JSON {@code {"a":1}}). */
  private static final ObjectMapper STRICT = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

  private TurnGuards() {}

  /**
   * Whether {@code next} may run, given every tool call request of this turn before it ({@code earlier}, in order,
   * refused ones included). Checked in this order:
   * <ol>
   *   <li>{@link GuardDecision.Verdict#LOOP_DETECTED}: {@code next} and the requests right before it are the same
   *       tool with the same arguments, {@link TurnLimits#loopThreshold()} times in a row (arguments are the same
   *       when their raw text is equal, or both parse as equal JSON: key order and whitespace do not matter);</li>
   *   <li>{@link GuardDecision.Verdict#OVER_TOTAL_LIMIT}: the turn already has
   *       {@link TurnLimits#maxToolCallsPerTurn()} requests;</li>
   *   <li>{@link GuardDecision.Verdict#OVER_TOOL_LIMIT}: it already has {@link TurnLimits#limitFor} requests of
   *       this tool;</li>
   * </ol>
   * else {@link GuardDecision#ALLOWED}.
   */
  public static GuardDecision checkToolCall(TurnLimits limits, List<ToolCallRequest> earlier,
      ToolCallRequest next) {
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(earlier, "earlier");
    Objects.requireNonNull(next, "next");
    int run = 1;
    for (int i = earlier.size() - 1; i >= 0 && run < limits.loopThreshold(); i--) {
      ToolCallRequest e = earlier.get(i);
      if (!e.name().equals(next.name()) || !sameArguments(e.rawArguments(), next.rawArguments())) {
        break;
      }
      run++;
    }
    if (run >= limits.loopThreshold()) {
      return new GuardDecision(GuardDecision.Verdict.LOOP_DETECTED, "Stopped: tool '" + next.name()
          + "' was called " + run + " times in a row with the same arguments. Repeating the call will not give a"
          + " different result; the turn ends here so the user can decide how to go on.");
    }
    if (earlier.size() >= limits.maxToolCallsPerTurn()) {
      return new GuardDecision(GuardDecision.Verdict.OVER_TOTAL_LIMIT, "Tool call refused: this turn already made "
          + earlier.size() + " tool calls, and the limit is " + limits.maxToolCallsPerTurn()
          + ". No more tools can run in this turn: answer with what you have.");
    }
    int sameTool = 0;
    for (ToolCallRequest e : earlier) {
      if (e.name().equals(next.name())) {
        sameTool++;
      }
    }
    int toolLimit = limits.limitFor(next.name());
    if (sameTool >= toolLimit) {
      return new GuardDecision(GuardDecision.Verdict.OVER_TOOL_LIMIT, "Tool call refused: tool '" + next.name()
          + "' was already called " + sameTool + " times in this turn, and its limit is " + toolLimit
          + ". Use the results you have, or another tool.");
    }
    return GuardDecision.ALLOWED;
  }

  /**
   * Whether another model request may be sent in this turn, when {@code roundTripsSoFar} have been (the
   * {@link dev.toolcall.ConversationSnapshot#roundTrips()} of the turn).
   *
   * @throws IllegalArgumentException if {@code roundTripsSoFar} is negative
   */
  public static GuardDecision checkRoundTrip(TurnLimits limits, int roundTripsSoFar) {
    Objects.requireNonNull(limits, "limits");
    if (roundTripsSoFar < 0) {
      throw new IllegalArgumentException("roundTripsSoFar must be >= 0, was " + roundTripsSoFar);
    }
    if (roundTripsSoFar < limits.maxRoundTrips()) {
      return GuardDecision.ALLOWED;
    }
    return new GuardDecision(GuardDecision.Verdict.OVER_ROUND_TRIP_LIMIT, "Stopped: this turn reached its limit of "
        + limits.maxRoundTrips() + " model requests without a final answer; the user decides how to go on.");
  }

  /**
   * The backoff before retrying a model request that failed with {@code failure} for the {@code retryCount}-th time
   * in a row (the {@link dev.toolcall.ConversationSnapshot#retryCount()} of the transient failure, 1 for the first), or empty
   * when it must not be retried: the failure is not transient, or {@link TurnLimits#maxModelRetries()} retries were
   * made. The delay is the retry policy's (with jitter from {@code random}, uniform in [0, 1)), or the provider's
   * {@link ModelException#retryAfter()} when that is longer.
   *
   * @throws IllegalArgumentException if {@code retryCount < 1} or {@code random} is outside [0, 1)
   */
  public static Optional<Duration> modelRetryDelay(TurnLimits limits, ModelException failure, int retryCount,
      double random) {
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(failure, "failure");
    if (retryCount < 1) {
      throw new IllegalArgumentException("retryCount must be >= 1, was " + retryCount);
    }
    if (!(random >= 0 && random < 1)) {
      throw new IllegalArgumentException("random must be in [0, 1), was " + random);
    }
    if (!failure.isTransient() || retryCount > limits.maxModelRetries()) {
      return Optional.empty();
    }
    Duration d = limits.modelRetry().delay(retryCount + 1, random);
    Optional<Duration> asked = failure.retryAfter();
    return Optional.of(asked.isPresent() && asked.get().compareTo(d) > 0 ? asked.get() : d);
  }

  /** Whether two raw argument texts mean the same: equal text, or equal JSON values. */
  static boolean sameArguments(String a, String b) {
    if (a.equals(b)) {
      return true;
    }
    JsonNode x = parse(a);
    return x != null && x.equals(parse(b));
  }

  /** The one JSON value of {@code raw}, or null: text after the value, or anything not JSON, is not JSON here. */
  private static JsonNode parse(String raw) {
    if (raw.isBlank()) {
      return null;
    }
    try {
      return STRICT.readTree(raw);
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}
