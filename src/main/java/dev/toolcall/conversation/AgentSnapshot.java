package dev.toolcall.conversation;

import dev.toolcall.ConversationSnapshot;
import dev.toolcall.CorruptSnapshotException;
import java.util.List;
import java.util.Objects;

/**
 * What an {@link Agent} must not lose across a restart: its conversation's state (without history), its messages,
 * and the results already known of the calls its turn is waiting on. Taken by {@link Agent#snapshot()}; given back
 * with {@link Agent.Builder#resume} and {@link Agent#resume}. A plain JSON document ({@link #toJson()},
 * {@link #fromJson(String)}, schema version {@value #SCHEMA_VERSION}).
 *
 * <p>Take it <em>before</em> the runtime's snapshot ({@link dev.toolcall.runtime.ToolCallRuntime#snapshot()}): each call of
 * the turn is read once here, so a call that ends between the two is in neither (the model is then told its outcome
 * is unknown) and never in both (nothing runs twice).
 *
 * @param conversation the conversation's current version, without history
 * @param messages the messages so far, oldest first; the last assistant message's calls may be unanswered
 * @param answered the results of the turn's open calls that had ended (or were refused) when this was taken
 */
public record AgentSnapshot(ConversationSnapshot conversation, List<Message> messages,
    List<ToolResultMessage> answered) {

  /** The schema version this library writes and reads. */
  public static final int SCHEMA_VERSION = 1;

  /** Checks the parts: the messages must be a well-formed history that may end with unanswered calls. */
  public AgentSnapshot {
    Objects.requireNonNull(conversation, "conversation");
    try {
      messages = History.check(Objects.requireNonNull(messages, "messages"), true);
    } catch (IllegalArgumentException e) {
      throw new CorruptSnapshotException("messages", e.getMessage(), e);
    }
    answered = List.copyOf(Objects.requireNonNull(answered, "answered"));
    conversation = conversation.withoutHistory();
  }

  /** The document as JSON text. */
  public String toJson() {
    return AgentSnapshotJson.write(this);
  }

  /**
   * Reads a document written by {@link #toJson()}.
   *
   * @throws CorruptSnapshotException naming the bad entry, if the text is not such a document
   */
  public static AgentSnapshot fromJson(String json) {
    return AgentSnapshotJson.read(Objects.requireNonNull(json, "json"));
  }
}
