package dev.toolcall.conversation;

/**
 * The tokens one model response (or a whole turn) used, as the provider reported them. Immutable. A client whose
 * provider reports no usage leaves {@link #NONE}; a count the provider does not report is 0.
 *
 * @param inputTokens tokens of the request (prompt), cached ones included; non-negative
 * @param outputTokens tokens of the response (completion), reasoning included; non-negative
 */
public record TokenUsage(long inputTokens, long outputTokens) {

  /** Nothing reported. */
  public static final TokenUsage NONE = new TokenUsage(0, 0);

  /** Checks the counts. */
  public TokenUsage {
    if (inputTokens < 0 || outputTokens < 0) {
      throw new IllegalArgumentException("token counts must be non-negative; got inputTokens=" + inputTokens
          + ", outputTokens=" + outputTokens);
    }
  }

  /** Input and output together. */
  public long totalTokens() {
    return inputTokens + outputTokens;
  }

  /** The sum of this and {@code other}: what two responses used together. */
  public TokenUsage plus(TokenUsage other) {
    return new TokenUsage(Math.addExact(inputTokens, other.inputTokens),
        Math.addExact(outputTokens, other.outputTokens));
  }
}
