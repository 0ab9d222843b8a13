package dev.toolcall.conversation;

import static dev.toolcall.internal.StrictJson.array;
import static dev.toolcall.internal.StrictJson.instant;
import static dev.toolcall.internal.StrictJson.integer;
import static dev.toolcall.internal.StrictJson.known;
import static dev.toolcall.internal.StrictJson.object;
import static dev.toolcall.internal.StrictJson.text;

import dev.toolcall.StateDetail;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import dev.toolcall.internal.StrictJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.CorruptSnapshotException;
import dev.toolcall.Reason;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The JSON form of an {@link AgentSnapshot}, read strictly (every field known and of its type; anything else is a
 * {@link CorruptSnapshotException} naming the entry). The conversation's ticks are not written: a restored
 * conversation counts from the wall-clock time of its version ({@code at}).
 */
final class AgentSnapshotJson {
  static final String FORMAT = "toolcall-lifecycle/agent-snapshot";
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final Set<String> TOP = Set.of("format", "schemaVersion", "conversation", "messages", "answered");
  private static final Set<String> CONV = Set.of("conversationId", "createdAt", "state", "version", "detail", "turn",
      "roundTrips", "reason", "at");

  private AgentSnapshotJson() {}

  static String write(AgentSnapshot s) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("format", FORMAT);
    root.put("schemaVersion", AgentSnapshot.SCHEMA_VERSION);
    ConversationSnapshot c = s.conversation();
    ObjectNode cn = root.putObject("conversation");
    cn.put("conversationId", c.conversationId());
    cn.put("createdAt", c.createdAt().toString());
    cn.put("state", c.state().wireName());
    cn.put("version", c.version());
    if (c.detail() != null) {
      ObjectNode d = cn.putObject("detail");
      if (c.detail() instanceof StateDetail.ToolError e) {
        d.put("kind", "tool_error").put("toolName", e.toolName()).put("error", e.error());
      } else if (c.detail() instanceof StateDetail.TransientFailure t) {
        d.put("kind", "transient_failure").put("error", t.error()).put("retryCount", t.retryCount());
      } else {
        d.put("kind", "failure").put("error", c.detail().error());
      }
    }
    cn.put("turn", c.turn());
    cn.put("roundTrips", c.roundTrips());
    cn.putObject("reason").put("code", c.reason().code()).put("message", c.reason().message());
    cn.put("at", c.timestamp().toString());
    messages(root.putArray("messages"), s.messages());
    messages(root.putArray("answered"), s.answered());
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write an agent snapshot", e);
    }
  }

  private static void messages(ArrayNode out, List<? extends Message> messages) {
    for (Message m : messages) {
      ObjectNode n = out.addObject();
      if (m instanceof UserMessage u) {
        n.put("role", "user").put("text", u.text());
      } else if (m instanceof AssistantMessage a) {
        n.put("role", "assistant").put("text", a.text());
        ArrayNode calls = n.putArray("toolCalls");
        for (ToolCallRequest c : a.toolCalls()) {
          calls.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.rawArguments());
        }
      } else {
        ToolResultMessage r = (ToolResultMessage) m;
        n.put("role", "tool").put("callId", r.callId()).put("toolName", r.toolName()).put("content", r.content())
            .put("isError", r.isError());
      }
    }
  }

  static AgentSnapshot read(String json) {
    JsonNode root = StrictJson.document(json);
    known(root, TOP, "document");
    if (!FORMAT.equals(text(root, "format", "document", true))) {
      throw new CorruptSnapshotException("format", "format is not '" + FORMAT + "'");
    }
    int schema = integer(root, "schemaVersion", "document");
    if (schema != AgentSnapshot.SCHEMA_VERSION) {
      throw new CorruptSnapshotException("schemaVersion", "schema version " + schema + " is not "
          + AgentSnapshot.SCHEMA_VERSION + (schema > AgentSnapshot.SCHEMA_VERSION
          ? " (written by a newer version of the library)" : ""));
    }
    ConversationSnapshot conversation = conversation(object(root.get("conversation"), "conversation"));
    List<Message> messages = new ArrayList<>();
    int i = 0;
    for (JsonNode n : array(root, "messages", "document")) {
      messages.add(message(n, "messages[" + i++ + "]"));
    }
    List<ToolResultMessage> answered = new ArrayList<>();
    i = 0;
    for (JsonNode n : array(root, "answered", "document")) {
      String where = "answered[" + i++ + "]";
      if (!(message(n, where) instanceof ToolResultMessage r)) {
        throw new CorruptSnapshotException(where, "must be a tool result");
      }
      answered.add(r);
    }
    return new AgentSnapshot(conversation, messages, answered);
  }

  private static ConversationSnapshot conversation(JsonNode n) {
    String where = "conversation";
    known(n, CONV, where);
    ConversationState state;
    try {
      state = ConversationState.fromWireName(text(n, "state", where, true));
    } catch (IllegalArgumentException e) {
      throw new CorruptSnapshotException(where, e.getMessage());
    }
    StateDetail detail = null;
    JsonNode d = n.get("detail");
    if (d != null && !d.isNull()) {
      String dw = where + ".detail";
      object(d, dw);
      String kind = text(d, "kind", dw, true);
      try {
        detail = switch (kind) {
          case "tool_error" -> new StateDetail.ToolError(text(d, "toolName", dw, true), text(d, "error", dw, true));
          case "transient_failure" -> new StateDetail.TransientFailure(text(d, "error", dw, true),
              integer(d, "retryCount", dw));
          case "failure" -> new StateDetail.Failure(text(d, "error", dw, true));
          default -> throw new CorruptSnapshotException(dw, "unknown detail kind '" + kind + "'");
        };
      } catch (CorruptSnapshotException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new CorruptSnapshotException(dw, String.valueOf(e.getMessage()), e);
      }
    }
    JsonNode r = object(n.get("reason"), where + ".reason");
    Instant createdAt = instant(n, "createdAt", where, true);
    Instant at = instant(n, "at", where, true);
    try {
      long tick = java.time.Duration.between(createdAt, at).toNanos(); // createdTick 0: ticks are remapped on resume
      return new ConversationSnapshot(text(n, "conversationId", where, true), createdAt, 0, state,
          integer(n, "version", where), detail, integer(n, "turn", where), integer(n, "roundTrips", where),
          Reason.of(text(r, "code", where + ".reason", true), text(r, "message", where + ".reason", true)), tick,
          null);
    } catch (CorruptSnapshotException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CorruptSnapshotException(where, String.valueOf(e.getMessage()), e);
    }
  }

  private static Message message(JsonNode n, String where) {
    object(n, where);
    String role = text(n, "role", where, true);
    try {
      switch (role) {
        case "user" -> {
          known(n, Set.of("role", "text"), where);
          return new UserMessage(text(n, "text", where, true));
        }
        case "assistant" -> {
          known(n, Set.of("role", "text", "toolCalls"), where);
          List<ToolCallRequest> calls = new ArrayList<>();
          int k = 0;
          for (JsonNode c : array(n, "toolCalls", where)) {
            String cw = where + ".toolCalls[" + k++ + "]";
            object(c, cw);
            known(c, Set.of("id", "name", "arguments"), cw);
            calls.add(new ToolCallRequest(text(c, "id", cw, true), text(c, "name", cw, true),
                text(c, "arguments", cw, true)));
          }
          return new AssistantMessage(text(n, "text", where, true), calls);
        }
        case "tool" -> {
          known(n, Set.of("role", "callId", "toolName", "content", "isError"), where);
          JsonNode e = n.get("isError");
          if (e == null || !e.isBoolean()) {
            throw new CorruptSnapshotException(where, "field 'isError' must be a boolean");
          }
          return new ToolResultMessage(text(n, "callId", where, true), text(n, "toolName", where, true),
              text(n, "content", where, true), e.asBoolean());
        }
        default -> throw new CorruptSnapshotException(where, "unknown role '" + role + "'");
      }
    } catch (CorruptSnapshotException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CorruptSnapshotException(where, String.valueOf(e.getMessage()), e);
    }
  }

}
