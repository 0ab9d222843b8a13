package dev.toolcall.agui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.permission.PermissionRequest;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * What both kinds of AG-UI run read from their input and write to their sink: a message's text, a resume payload in
 * its full form, and the frames that end a run (an answer, an interrupt). Stateless.
 */
final class RunFrames {
  private RunFrames() {}

  /** A run event of {@code type}, stamped now. */
  static ObjectNode event(String type) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("type", type);
    n.put("timestamp", System.currentTimeMillis());
    return n;
  }

  static void emit(FrameSink sink, ObjectNode n) throws IOException {
    sink.write(Wire.frame(n));
  }

  /** The text of a message's {@code content}: a string, or the text parts of an array. */
  static String content(JsonNode c) {
    if (c == null || c.isNull()) {
      return "";
    }
    if (c.isTextual()) {
      return c.asText();
    }
    StringBuilder b = new StringBuilder();
    for (JsonNode part : c) {
      if (part.path("type").asText("").equals("text")) {
        b.append(part.path("text").asText(""));
      }
    }
    return b.toString();
  }

  /**
   * A resume payload in its full form: the legacy words ({@code approve}, {@code deny}, ...) and {@code {approved}}
   * turned into a {@code decision}.
   *
   * @throws RefusedException 400 for a payload of another shape
   */
  static JsonNode payload(JsonNode p) {
    if (p == null || p.isNull()) {
      throw new RefusedException(400, "bad_request", "a resolved resume entry needs a payload");
    }
    if (p.isTextual()) {
      String w = p.asText().strip().toLowerCase(Locale.ROOT);
      if (w.equals("approve") || w.equals("yes") || w.equals("approve_once")) {
        return JsonNodeFactory.instance.objectNode().put("decision", "approve_once");
      }
      if (w.equals("deny") || w.equals("no") || w.equals("reject")) {
        return JsonNodeFactory.instance.objectNode().put("decision", "deny");
      }
      throw new RefusedException(400, "bad_request", "a text resume must be approve or deny");
    }
    if (!p.isObject()) {
      throw new RefusedException(400, "bad_request", "the payload must be an object");
    }
    if (!p.has("decision") && p.has("approved")) {
      if (!p.get("approved").isBoolean()) {
        throw new RefusedException(400, "bad_request", "payload.approved must be true or false");
      }
      ObjectNode o = ((ObjectNode) p).deepCopy();
      o.put("decision", p.get("approved").asBoolean() ? "approve_once" : "deny");
      o.remove("approved");
      return o;
    }
    return p;
  }

  /** Ends a run with an interrupt: per open request a legacy {@code on_interrupt}, then {@code RUN_FINISHED}. */
  static void interrupt(FrameSink sink, String threadId, String runId, List<PermissionRequest> open)
      throws IOException {
    ArrayNode interrupts = JsonNodeFactory.instance.arrayNode();
    for (PermissionRequest r : open) {
      ObjectNode i = interrupts.addObject();
      i.put("id", r.requestId());
      i.put("reason", "tool_call");
      i.put("message", "Allow " + r.toolName() + "?");
      i.put("toolCallId", r.callId());
      i.set("responseSchema", Wire.responseSchema());
      i.put("expiresAt", r.deadline().toString());
      i.set("metadata", Wire.request(r));
    }
    for (JsonNode i : interrupts) {
      emit(sink, event("CUSTOM").put("name", "on_interrupt").put("value", Wire.text(i)));
    }
    ObjectNode finished = event("RUN_FINISHED").put("threadId", threadId).put("runId", runId);
    finished.putObject("outcome").put("type", "interrupt").set("interrupts", interrupts);
    emit(sink, finished);
  }

  /** The turn's answer as one text message (nothing for an empty one). */
  static void answer(FrameSink sink, String text) throws IOException {
    if (text.isEmpty()) {
      return;
    }
    String id = "msg-" + UUID.randomUUID();
    emit(sink, event("TEXT_MESSAGE_START").put("messageId", id).put("role", "assistant"));
    emit(sink, event("TEXT_MESSAGE_CONTENT").put("messageId", id).put("delta", text));
    emit(sink, event("TEXT_MESSAGE_END").put("messageId", id));
  }

  /** Ends a run with outcome success. */
  static void success(FrameSink sink, String threadId, String runId) throws IOException {
    ObjectNode finished = event("RUN_FINISHED").put("threadId", threadId).put("runId", runId);
    finished.putObject("outcome").put("type", "success");
    emit(sink, finished);
  }
}
