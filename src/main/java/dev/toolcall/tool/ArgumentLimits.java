package dev.toolcall.tool;

/**
 * The limits that bound the parsing of a tool call's argument text, so a hostile or broken model output cannot
 * exhaust memory or stack. Input beyond a limit is not parsed further: it fails with
 * {@link dev.toolcall.FailureKind#ARGUMENTS_TOO_LARGE} and a message for the model that names the limit.
 *
 * <p>Lengths count UTF-16 code units ({@code char}s) of the text as received, which is how Jackson counts them for
 * text input. The limits are enforced through Jackson's {@code StreamReadConstraints} while the JSON is read, so a
 * violation stops the reading at once; the document length is checked before any reading starts. Plain-text
 * arguments (not JSON) are one string and so are bound by {@link #maxStringLength} too.
 *
 * <p>Immutable and thread-safe; compare with {@code equals}.
 *
 * @param maxDocumentLength the longest argument text, at least 1 (default 1 MiB: 1,048,576 characters)
 * @param maxNestingDepth the deepest nesting of arrays and objects, 1 to {@value #MAX_NESTING_DEPTH} (default 64)
 * @param maxStringLength the longest string value or property name, at least 1 (default 1 MiB)
 * @param maxNumberLength the most characters in one number, at least 1 (default 100)
 */
public record ArgumentLimits(int maxDocumentLength, int maxNestingDepth, int maxStringLength, int maxNumberLength) {

  /**
   * The highest nesting depth that may be configured. Validation walks the parsed value recursively, so the depth
   * also bounds the stack a call's arguments may use.
   */
  public static final int MAX_NESTING_DEPTH = 1000;

  /** 1 MiB of text, nesting depth 64, strings up to 1 MiB, numbers up to 100 characters. */
  public static final ArgumentLimits DEFAULT = new ArgumentLimits(1 << 20, 64, 1 << 20, 100);

  /** Checks every limit and names the one that is wrong. */
  public ArgumentLimits {
    requireAtLeastOne(maxDocumentLength, "maxDocumentLength");
    requireAtLeastOne(maxNestingDepth, "maxNestingDepth");
    requireAtLeastOne(maxStringLength, "maxStringLength");
    requireAtLeastOne(maxNumberLength, "maxNumberLength");
    if (maxNestingDepth > MAX_NESTING_DEPTH) {
      throw new IllegalArgumentException(
          "maxNestingDepth must be at most " + MAX_NESTING_DEPTH + ", was " + maxNestingDepth);
    }
  }

  private static void requireAtLeastOne(int value, String name) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1, was " + value);
    }
  }

  /** These limits with another {@link #maxDocumentLength}. */
  public ArgumentLimits withMaxDocumentLength(int maxDocumentLength) {
    return new ArgumentLimits(maxDocumentLength, maxNestingDepth, maxStringLength, maxNumberLength);
  }

  /** These limits with another {@link #maxNestingDepth}. */
  public ArgumentLimits withMaxNestingDepth(int maxNestingDepth) {
    return new ArgumentLimits(maxDocumentLength, maxNestingDepth, maxStringLength, maxNumberLength);
  }

  /** These limits with another {@link #maxStringLength}. */
  public ArgumentLimits withMaxStringLength(int maxStringLength) {
    return new ArgumentLimits(maxDocumentLength, maxNestingDepth, maxStringLength, maxNumberLength);
  }

  /** These limits with another {@link #maxNumberLength}. */
  public ArgumentLimits withMaxNumberLength(int maxNumberLength) {
    return new ArgumentLimits(maxDocumentLength, maxNestingDepth, maxStringLength, maxNumberLength);
  }
}
