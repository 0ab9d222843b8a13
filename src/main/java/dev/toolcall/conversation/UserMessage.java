package dev.toolcall.conversation;

import java.util.Objects;

/**
 * What the user wrote.
 *
 * @param text the text (non-null)
 */
public record UserMessage(String text) implements Message {
  /** Checks the text is present. */
  public UserMessage {
    Objects.requireNonNull(text, "text");
  }
}
