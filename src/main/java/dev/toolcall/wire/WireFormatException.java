package dev.toolcall.wire;

import java.util.List;
import java.util.Objects;

/**
 * What a remote client posted does not follow the wire format (not JSON, a wrong version, a missing or mistyped
 * field). Its message is written for that client (a remote path answers it as a bad request with that message);
 * nothing was applied. Immutable once thrown.
 */
public final class WireFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final transient List<String> problems;

  /**
   * A refusal of what a client posted.
   *
   * @param message what was wrong, for the client
   * @param problems each problem found (a path and what is wrong there); may be empty
   */
  public WireFormatException(String message, List<String> problems) {
    super(Objects.requireNonNull(message, "message"));
    this.problems = List.copyOf(Objects.requireNonNull(problems, "problems"));
  }

  /** Each problem found, a path and what is wrong there. */
  public List<String> problems() {
    return problems;
  }
}
