package dev.toolcall.springai.boot;

// README:begin boot-controller
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.wire.WireFormat;
import dev.toolcall.wire.WireFormatException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ShopController {
  private final ChatClient chatClient;
  private final ToolCallRuntime runtime;

  public ShopController(ChatClient chatClient, ToolCallRuntime runtime) {
    this.chatClient = chatClient;
    this.runtime = runtime;
  }

  /** One user message; waits (on this request's thread) while a person decides on the tool calls. */
  @PostMapping("/conversations/{id}/messages")
  public String chat(@PathVariable String id, @RequestBody String text) {
    return chatClient.prompt().user(text)
        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, id)).call().content();
  }

  /** The conversation's waiting requests: wire-format "permission.request" objects, for a page that polls. */
  @GetMapping("/conversations/{id}/approvals")
  public List<ObjectNode> pending(@PathVariable String id) {
    return runtime.permissions().pending().stream()
        .filter(r -> r.sessionId().equals(id)).map(WireFormat::request).toList();
  }

  /**
   * Decides, from {"v":1,"decisions":[{"requestId":..,"argumentsVersion":..,"decision":"approve_once"}]}: 200 with a
   * "decision.result" per decision when each took effect, else 409 with them (a late or repeated decision says
   * "already_answered" and what won).
   */
  @PostMapping("/conversations/{id}/approvals")
  public ResponseEntity<List<ObjectNode>> decide(@PathVariable String id, @RequestBody String body) {
    List<ObjectNode> results = new ArrayList<>();
    for (Decision d : WireFormat.parseDecisions(body)) {
      boolean otherConversation = runtime.permissions().request(d.requestId())
          .filter(r -> !r.sessionId().equals(id)).isPresent();
      results.add(WireFormat.decisionResult(otherConversation ? new DecisionResult.UnknownRequest(d.requestId())
          : runtime.permissions().decide(d.requestId(), d)));
    }
    boolean allWon = results.stream().allMatch(r -> r.get("status").asText().equals("accepted"));
    return ResponseEntity.status(allWon ? HttpStatus.OK : HttpStatus.CONFLICT).body(results);
  }

  /** A body that is not the wire format: 400 with what was wrong. */
  @ExceptionHandler(WireFormatException.class)
  public ResponseEntity<String> badBody(WireFormatException e) {
    return ResponseEntity.badRequest().body(e.getMessage());
  }
}
// README:end boot-controller
