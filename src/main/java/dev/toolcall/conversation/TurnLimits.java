package dev.toolcall.conversation;

import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The guards of one turn (from one user message to the answer), as plain values: the source's guards against
 * infinite loops. Immutable; build with {@link #builder()}, or take {@link #defaults()}. {@link TurnGuards} applies
 * them.
 *
 * @param maxRoundTrips model requests per turn, retries not counted (at least 1); when reached, the turn stops
 * @param maxToolCallsPerTurn tool calls per turn in total (at least 1); a call over it fails with a message for the
 *     model
 * @param maxCallsPerTool tool calls per turn of any one tool (at least 1), unless {@code perToolLimits} names it
 * @param perToolLimits limits for particular tools, by name (each at least 1); an immutable copy
 * @param loopThreshold how many times in a row the same tool with the same arguments stops the turn (at least 2)
 * @param modelRetry how transient model failures are retried: at most {@code maxAttempts - 1} retries per request,
 *     with its backoff
 */
public record TurnLimits(int maxRoundTrips, int maxToolCallsPerTurn, int maxCallsPerTool,
    Map<String, Integer> perToolLimits, int loopThreshold, RetryPolicy modelRetry) {

  /** Default model round trips per turn: 50. */
  public static final int DEFAULT_MAX_ROUND_TRIPS = 50;
  /** Default tool calls per turn: 100. */
  public static final int DEFAULT_MAX_TOOL_CALLS_PER_TURN = 100;
  /** Default calls of one tool per turn: 50. */
  public static final int DEFAULT_MAX_CALLS_PER_TOOL = 50;
  /** Default loop threshold: the 5th identical call in a row stops the turn. */
  public static final int DEFAULT_LOOP_THRESHOLD = 5;
  /** Default model retry: 5 attempts (4 retries), exponential from 1 s, capped at 30 s, 20% jitter. */
  public static final RetryPolicy DEFAULT_MODEL_RETRY = RetryPolicy.exponential(5, Duration.ofSeconds(1));

  private static final TurnLimits DEFAULTS = builder().build();

  /** Checks every part and names the one that is wrong. */
  public TurnLimits {
    atLeast(maxRoundTrips, 1, "maxRoundTrips");
    atLeast(maxToolCallsPerTurn, 1, "maxToolCallsPerTurn");
    atLeast(maxCallsPerTool, 1, "maxCallsPerTool");
    Objects.requireNonNull(perToolLimits, "perToolLimits");
    TreeMap<String, Integer> copy = new TreeMap<>();
    perToolLimits.forEach((name, limit) -> {
      Objects.requireNonNull(name, "perToolLimits key");
      Objects.requireNonNull(limit, "perToolLimits value for '" + name + "'");
      if (!ToolDefinition.NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("perToolLimits key '" + name + "' is not a tool name: it must match "
            + ToolDefinition.NAME.pattern());
      }
      atLeast(limit, 1, "perToolLimits value for '" + name + "'");
      copy.put(name, limit);
    });
    perToolLimits = Map.copyOf(copy);
    atLeast(loopThreshold, 2, "loopThreshold");
    Objects.requireNonNull(modelRetry, "modelRetry");
  }

  private static void atLeast(int value, int min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
    }
  }

  /** The defaults: the {@code DEFAULT_*} constants, no per-tool limits. */
  public static TurnLimits defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The calls of {@code toolName} allowed per turn. */
  public int limitFor(String toolName) {
    return perToolLimits.getOrDefault(Objects.requireNonNull(toolName, "toolName"), maxCallsPerTool);
  }

  /** The retries allowed per model request ({@code modelRetry.maxAttempts() - 1}). */
  public int maxModelRetries() {
    return modelRetry.maxAttempts() - 1;
  }

  /** Builds {@link TurnLimits}; not thread-safe. Each setter checks its value at once, naming the parameter. */
  public static final class Builder {
    private int maxRoundTrips = DEFAULT_MAX_ROUND_TRIPS;
    private int maxToolCallsPerTurn = DEFAULT_MAX_TOOL_CALLS_PER_TURN;
    private int maxCallsPerTool = DEFAULT_MAX_CALLS_PER_TOOL;
    private final TreeMap<String, Integer> perToolLimits = new TreeMap<>();
    private int loopThreshold = DEFAULT_LOOP_THRESHOLD;
    private RetryPolicy modelRetry = DEFAULT_MODEL_RETRY;

    private Builder() {}

    /** Model requests per turn, retries not counted (default 50). */
    public Builder maxRoundTrips(int maxRoundTrips) {
      atLeast(maxRoundTrips, 1, "maxRoundTrips");
      this.maxRoundTrips = maxRoundTrips;
      return this;
    }

    /** Tool calls per turn in total (default 100). */
    public Builder maxToolCallsPerTurn(int maxToolCallsPerTurn) {
      atLeast(maxToolCallsPerTurn, 1, "maxToolCallsPerTurn");
      this.maxToolCallsPerTurn = maxToolCallsPerTurn;
      return this;
    }

    /** Calls of any one tool per turn (default 50). */
    public Builder maxCallsPerTool(int maxCallsPerTool) {
      atLeast(maxCallsPerTool, 1, "maxCallsPerTool");
      this.maxCallsPerTool = maxCallsPerTool;
      return this;
    }

    /** Calls of the tool {@code toolName} per turn, instead of {@link #maxCallsPerTool}. */
    public Builder maxCallsOf(String toolName, int limit) {
      Objects.requireNonNull(toolName, "toolName");
      if (!ToolDefinition.NAME.matcher(toolName).matches()) {
        throw new IllegalArgumentException("toolName '" + toolName + "' must match " + ToolDefinition.NAME.pattern());
      }
      atLeast(limit, 1, "limit");
      perToolLimits.put(toolName, limit);
      return this;
    }

    /** How many identical calls in a row stop the turn (default 5, at least 2). */
    public Builder loopThreshold(int loopThreshold) {
      atLeast(loopThreshold, 2, "loopThreshold");
      this.loopThreshold = loopThreshold;
      return this;
    }

    /** How transient model failures are retried (default {@link #DEFAULT_MODEL_RETRY}). */
    public Builder modelRetry(RetryPolicy modelRetry) {
      this.modelRetry = Objects.requireNonNull(modelRetry, "modelRetry");
      return this;
    }

    /** The limits. */
    public TurnLimits build() {
      return new TurnLimits(maxRoundTrips, maxToolCallsPerTurn, maxCallsPerTool, perToolLimits, loopThreshold,
          modelRetry);
    }
  }
}
