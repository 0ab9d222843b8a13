package dev.toolcall.a2a;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.UUID;

/**
 * The A2A JSON this server writes (1.0, ProtoJSON names) and its 0.3 translation for clients that call the 0.3
 * method names: parts {@code {"text"}} / {@code {"data"}} become {@code {"kind":"text"}} / {@code {"kind":"data"}},
 * roles and states take their 0.3 spelling, stream events their {@code kind}.
 */
final class A2aJson {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Reads what clients send: a duplicate key is an error, not a silent last-wins. */
  static final ObjectMapper STRICT = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private A2aJson() {}

  static String text(JsonNode n) {
    try {
      return JSON.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static ObjectNode parseStored(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (JsonProcessingException | ClassCastException e) {
      throw new IllegalStateException("a stored task is not a JSON object: " + e.getMessage(), e);
    }
  }

  static ObjectNode textPart(String text) {
    return JSON.createObjectNode().put("text", text).put("mediaType", "text/plain");
  }

  static ObjectNode dataPart(JsonNode data) {
    ObjectNode p = JSON.createObjectNode();
    p.set("data", data);
    p.put("mediaType", "application/json");
    return p;
  }

  /** An agent message of a task. */
  static ObjectNode agentMessage(String taskId, String contextId, ArrayNode parts) {
    ObjectNode m = JSON.createObjectNode();
    m.put("messageId", UUID.randomUUID().toString());
    m.put("contextId", contextId);
    m.put("taskId", taskId);
    m.put("role", "ROLE_AGENT");
    m.set("parts", parts);
    return m;
  }

  // ---------------------------------------------------------------------------------------------- 0.3 translation

  private static final Map<String, String> ROLES = Map.of("ROLE_USER", "user", "ROLE_AGENT", "agent");

  /** A 1.0 Task as 0.3 writes it. */
  static ObjectNode legacyTask(JsonNode task) {
    ObjectNode t = task.deepCopy();
    ObjectNode out = JSON.createObjectNode().put("kind", "task");
    out.setAll(t);
    out.set("status", legacyStatus(t.path("status")));
    if (t.has("history")) {
      ArrayNode h = JSON.createArrayNode();
      t.get("history").forEach(m -> h.add(legacyMessage(m)));
      out.set("history", h);
    }
    if (t.has("artifacts")) {
      ArrayNode a = JSON.createArrayNode();
      t.get("artifacts").forEach(x -> a.add(legacyArtifact(x)));
      out.set("artifacts", a);
    }
    return out;
  }

  static ObjectNode legacyStatus(JsonNode status) {
    ObjectNode s = status.deepCopy();
    if (s.has("state")) {
      s.put("state", TaskState.ofName(s.get("state").asText()).legacyName());
    }
    if (s.has("message")) {
      s.set("message", legacyMessage(s.get("message")));
    }
    return s;
  }

  static ObjectNode legacyMessage(JsonNode message) {
    ObjectNode out = JSON.createObjectNode().put("kind", "message");
    out.setAll((ObjectNode) message.deepCopy());
    out.put("role", ROLES.getOrDefault(message.path("role").asText(), message.path("role").asText()));
    out.set("parts", legacyParts(message.path("parts")));
    return out;
  }

  static ObjectNode legacyArtifact(JsonNode artifact) {
    ObjectNode out = artifact.deepCopy();
    out.set("parts", legacyParts(artifact.path("parts")));
    return out;
  }

  private static ArrayNode legacyParts(JsonNode parts) {
    ArrayNode out = JSON.createArrayNode();
    for (JsonNode p : parts) {
      ObjectNode q = JSON.createObjectNode();
      if (p.has("text")) {
        q.put("kind", "text").set("text", p.get("text"));
      } else {
        q.put("kind", "data").set("data", p.get("data"));
      }
      if (p.has("metadata")) {
        q.set("metadata", p.get("metadata"));
      }
      out.add(q);
    }
    return out;
  }

  /** A 1.0 StreamResponse ({@code {task}|{statusUpdate}|{artifactUpdate}}) as the 0.3 event. */
  static ObjectNode legacyEvent(JsonNode event) {
    if (event.has("task")) {
      return legacyTask(event.get("task"));
    }
    if (event.has("statusUpdate")) {
      JsonNode u = event.get("statusUpdate");
      ObjectNode out = JSON.createObjectNode().put("kind", "status-update");
      out.set("taskId", u.get("taskId"));
      out.set("contextId", u.get("contextId"));
      out.set("status", legacyStatus(u.get("status")));
      TaskState s = TaskState.ofName(u.path("status").path("state").asText());
      out.put("final", s.isTerminal() || s == TaskState.INPUT_REQUIRED);
      return out;
    }
    JsonNode u = event.get("artifactUpdate");
    ObjectNode out = JSON.createObjectNode().put("kind", "artifact-update");
    out.set("taskId", u.get("taskId"));
    out.set("contextId", u.get("contextId"));
    out.set("artifact", legacyArtifact(u.get("artifact")));
    out.put("append", u.path("append").asBoolean(false));
    out.put("lastChunk", u.path("lastChunk").asBoolean(true));
    return out;
  }
}
