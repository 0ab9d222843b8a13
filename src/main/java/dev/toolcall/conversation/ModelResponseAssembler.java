package dev.toolcall.conversation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

/**
 * Builds a {@link ModelResponse} from the deltas of one stream and checks that they follow the {@link ModelDelta}
 * protocol. Text fragments are concatenated; raw argument fragments are accumulated per call; calls keep the order in
 * which they were announced, however their fragments interleave.
 *
 * <p>{@link #accept} returns the deltas to pass on, in order: usually just the one given; for a
 * {@link ModelDelta.ResponseCompleted} first a {@link ModelDelta.ToolCallCompleted} for every call still open (so a
 * listener always sees each call completed), then the response's completion. A delta that breaks the protocol (a
 * fragment or completion for a call that is not open, a second start of an open call id, anything after the
 * response's completion) is refused with a {@link ModelException} of kind
 * {@link ModelException.Kind#MALFORMED_RESPONSE}, and changes nothing. A call id announced again after that call
 * completed starts a new call (the model repeated an id; the turn deals with that).
 *
 * <p>Not thread-safe: one stream, fed by one thread at a time (successive calls from different threads need a
 * happens-before edge, which any sequential source provides).
 */
public final class ModelResponseAssembler {

  private final StringBuilder text = new StringBuilder();
  private final List<CallBuilder> calls = new ArrayList<>();
  private final HashMap<String, CallBuilder> open = new HashMap<>();
  private StopReason stopReason;
  private ModelDelta.ResponseCompleted completion;

  /** An assembler with nothing received. */
  public ModelResponseAssembler() {}

  /**
   * Takes the next delta of the stream.
   *
   * @return the deltas to pass on, in order (see above)
   * @throws ModelException of kind {@link ModelException.Kind#MALFORMED_RESPONSE} when the delta breaks the protocol
   * @throws NullPointerException if {@code delta} is null
   */
  public List<ModelDelta> accept(ModelDelta delta) throws ModelException {
    if (delta == null) {
      throw new NullPointerException("delta");
    }
    if (stopReason != null) {
      throw malformed("delta " + delta + " after the response completed");
    }
    if (delta instanceof ModelDelta.Text t) {
      text.append(t.text());
    } else if (delta instanceof ModelDelta.ToolCallStarted s) {
      if (open.containsKey(s.callId())) {
        throw malformed("tool call '" + s.callId() + "' announced twice while open");
      }
      CallBuilder c = new CallBuilder(s.callId(), s.toolName());
      calls.add(c);
      open.put(s.callId(), c);
    } else if (delta instanceof ModelDelta.ToolCallArguments a) {
      CallBuilder c = open.get(a.callId());
      if (c == null) {
        throw malformed("arguments for tool call '" + a.callId() + "', which is not open");
      }
      c.arguments.append(a.fragment());
    } else if (delta instanceof ModelDelta.ToolCallCompleted c) {
      if (open.remove(c.callId()) == null) {
        throw malformed("completion of tool call '" + c.callId() + "', which is not open");
      }
    } else if (delta instanceof ModelDelta.ResponseCompleted r) {
      stopReason = r.stopReason();
      completion = r;
      if (!open.isEmpty()) {
        ArrayList<ModelDelta> out = new ArrayList<>(open.size() + 1);
        for (CallBuilder c : calls) {
          if (open.remove(c.id, c)) {
            out.add(new ModelDelta.ToolCallCompleted(c.id));
          }
        }
        out.add(delta);
        return out;
      }
    }
    return List.of(delta);
  }

  /** Whether the response's completion has been received. */
  public boolean isComplete() {
    return stopReason != null;
  }

  /** The raw argument text received so far for the latest call announced with {@code callId}, if any. */
  public Optional<String> rawArguments(String callId) {
    for (int i = calls.size() - 1; i >= 0; i--) {
      CallBuilder c = calls.get(i);
      if (c.id.equals(callId)) {
        return Optional.of(c.arguments.toString());
      }
    }
    return Optional.empty();
  }

  /**
   * The assembled response.
   *
   * @throws ModelException of kind {@link ModelException.Kind#MALFORMED_RESPONSE} when the response's completion has
   *     not been received
   */
  public ModelResponse response() throws ModelException {
    if (stopReason == null) {
      throw malformed("the stream ended before the response completed");
    }
    ArrayList<ToolCallRequest> out = new ArrayList<>(calls.size());
    for (CallBuilder c : calls) {
      out.add(new ToolCallRequest(c.id, c.name, c.arguments.toString()));
    }
    return new ModelResponse(text.toString(), out, stopReason, completion.usage(), completion.finishReason());
  }

  private static ModelException malformed(String what) {
    return ModelException.of(ModelException.Kind.MALFORMED_RESPONSE, "malformed model stream: " + what);
  }

  private static final class CallBuilder {
    final String id;
    final String name;
    final StringBuilder arguments = new StringBuilder();

    CallBuilder(String id, String name) {
      this.id = id;
      this.name = name;
    }
  }
}
