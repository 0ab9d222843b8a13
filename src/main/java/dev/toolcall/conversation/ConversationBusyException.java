package dev.toolcall.conversation;

import java.time.Instant;
import java.util.Objects;

/**
 * Another step of the conversation is under way (on this instance or another): this one was refused and changed
 * nothing. Try again once that step has ended; an HTTP layer answers it 409. Its message names the conversation and
 * when the other step's hold lapses unless renewed, never who holds it.
 */
public final class ConversationBusyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String conversationId;
  private final transient Instant until;

  /**
   * The refusal of a step of {@code conversationId}.
   *
   * @param conversationId the conversation
   * @param until when the other step's hold lapses unless renewed
   */
  public ConversationBusyException(String conversationId, Instant until) {
    super("conversation " + Objects.requireNonNull(conversationId, "conversationId")
        + " is busy: another step of it is under way (held until " + Objects.requireNonNull(until, "until")
        + " unless renewed); nothing was changed");
    this.conversationId = conversationId;
    this.until = until;
  }

  /** The conversation. */
  public String conversationId() {
    return conversationId;
  }

  /** When the other step's hold lapses unless renewed. */
  public Instant until() {
    return until;
  }
}
