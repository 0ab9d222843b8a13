package dev.toolcall.conversation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One piece of a streamed model response. Immutable.
 *
 * <h2>Protocol</h2>
 * A stream that a {@link ModelClient#stream} listener receives is well formed: any number of {@link Text} and tool
 * call deltas, then exactly one {@link ResponseCompleted}, last. Each tool call is announced once by
 * {@link ToolCallStarted} (a UI shows it at once), followed by zero or more {@link ToolCallArguments} fragments of its
 * raw argument text, then exactly one {@link ToolCallCompleted} (its arguments are final and it may be scheduled),
 * always before the {@link ResponseCompleted}. Deltas of different calls (and text) may interleave. A source that
 * never sends {@link ToolCallCompleted} gets one per open call, in announcement order, just before its
 * {@link ResponseCompleted} (see {@link ModelResponseAssembler}).
 */
public sealed interface ModelDelta
    permits ModelDelta.Text, ModelDelta.ToolCallStarted, ModelDelta.ToolCallArguments, ModelDelta.ToolCallCompleted,
    ModelDelta.ResponseCompleted {

  /**
   * More of the assistant's text.
   *
   * @param text the fragment (non-null)
   */
  record Text(String text) implements ModelDelta {
    /** Checks the fragment. */
    public Text {
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * The model began a tool call.
   *
   * @param callId the call id (non-blank)
   * @param toolName the requested tool name (non-blank)
   */
  record ToolCallStarted(String callId, String toolName) implements ModelDelta {
    /** Checks the parts. */
    public ToolCallStarted {
      Objects.requireNonNull(callId, "callId"); // blank ids and names are the model's: the turn answers them
      Objects.requireNonNull(toolName, "toolName");
    }
  }

  /**
   * More raw argument text of an announced call (not valid JSON until the call completes).
   *
   * @param callId the call's id (non-blank)
   * @param fragment the text to append (non-null)
   */
  record ToolCallArguments(String callId, String fragment) implements ModelDelta {
    /** Checks the parts. */
    public ToolCallArguments {
      Objects.requireNonNull(callId, "callId");
      Objects.requireNonNull(fragment, "fragment");
    }
  }

  /**
   * The call's arguments are complete.
   *
   * @param callId the call's id (non-blank)
   */
  record ToolCallCompleted(String callId) implements ModelDelta {
    /** Checks the id. */
    public ToolCallCompleted {
      Objects.requireNonNull(callId, "callId");
    }
  }

  /**
   * The response is complete; nothing follows.
   *
   * @param stopReason why the model stopped
   * @param usage the tokens used, as the provider reported them ({@link TokenUsage#NONE} when not reported)
   * @param finishReason the provider's own finish reason; empty when unknown
   */
  record ResponseCompleted(StopReason stopReason, TokenUsage usage, String finishReason) implements ModelDelta {
    /** Completion without usage or provider finish reason. */
    public ResponseCompleted(StopReason stopReason) {
      this(stopReason, TokenUsage.NONE, "");
    }

    /** Checks the parts. */
    public ResponseCompleted {
      Objects.requireNonNull(stopReason, "stopReason");
      Objects.requireNonNull(usage, "usage");
      Objects.requireNonNull(finishReason, "finishReason");
    }
  }

  /**
   * The well-formed deltas that describe {@code response}: its text (if any), then per call its start, its arguments
   * (if any) and its completion, then the response's completion. Assembling them gives back an equal response.
   */
  static List<ModelDelta> replay(ModelResponse response) {
    Objects.requireNonNull(response, "response");
    ArrayList<ModelDelta> out = new ArrayList<>(2 + 3 * response.toolCalls().size());
    if (!response.text().isEmpty()) {
      out.add(new Text(response.text()));
    }
    for (ToolCallRequest c : response.toolCalls()) {
      out.add(new ToolCallStarted(c.id(), c.name()));
      if (!c.rawArguments().isEmpty()) {
        out.add(new ToolCallArguments(c.id(), c.rawArguments()));
      }
      out.add(new ToolCallCompleted(c.id()));
    }
    out.add(new ResponseCompleted(response.stopReason(), response.usage(), response.finishReason()));
    return Collections.unmodifiableList(out);
  }
}
