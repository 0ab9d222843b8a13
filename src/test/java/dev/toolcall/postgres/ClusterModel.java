package dev.toolcall.postgres;

import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelRequest;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.UserMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The model of the multi-instance tests: a pure function of the conversation, so that every instance answers a
 * request as any other would. A user message {@code deploy X} (or {@code deploy X and Y}) asks for one {@code shell}
 * call per target, each with an id of its own (a provider's random id, as OpenAI's and Anthropic's are: a user message
 * sent again after its step was lost gets calls of new ids); once the calls have results it
 * answers {@code done: } and each result the model was given, in order, so a test reads off the answer exactly what the
 * model was told. Counts the requests it answered with tool calls and with text, per instance.
 */
final class ClusterModel implements ModelClient {

  @Override
  public CompletionStage<ModelResponse> complete(ModelRequest request) {
    List<Message> m = request.messages();
    Message last = m.get(m.size() - 1);
    if (last instanceof UserMessage u && u.text().startsWith("deploy ")) {
      List<ToolCallRequest> calls = new ArrayList<>();
      String[] targets = u.text().substring("deploy ".length()).split(" and ");
      for (int i = 0; i < targets.length; i++) {
        calls.add(new ToolCallRequest("call_" + java.util.UUID.randomUUID().toString().replace("-", "") + "_" + i, "shell",
            "{\"command\":\"deploy " + targets[i].strip() + "\"}"));
      }
      return CompletableFuture.completedFuture(ModelResponse.toolCalls("Deploying, with your approval.", calls));
    }
    StringBuilder told = new StringBuilder("done:");
    for (int i = m.size() - 1; i >= 0 && m.get(i) instanceof ToolResultMessage; i--) {
      told.insert("done:".length(), " [" + ((ToolResultMessage) m.get(i)).content() + "]");
    }
    return CompletableFuture.completedFuture(ModelResponse.text(told.toString()));
  }
}
