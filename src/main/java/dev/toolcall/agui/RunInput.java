package dev.toolcall.agui;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The shape of an AG-UI {@code RunAgentInput} this endpoint reads, checked before anything else (the access check
 * included, so that a malformed body learns nothing about a thread): {@code threadId} and {@code runId} non-blank
 * strings; {@code parentRunId} a string; {@code messages}, {@code tools}, {@code context} and {@code resume} arrays;
 * {@code forwardedProps} and its {@code command} objects; each message an object with a string {@code role}, a string
 * {@code id} and a string or array {@code content}; each resume entry an object with a non-blank string
 * {@code interruptId} and a {@code status} of {@code resolved} or {@code cancelled}. An optional field may be absent
 * or null. Anything else is a 400 {@code bad_request} whose message names the field.
 */
final class RunInput {
  private RunInput() {}

  static void check(JsonNode in) {
    requireText(in, "threadId", "threadId");
    requireText(in, "runId", "runId");
    JsonNode parent = in.get("parentRunId");
    if (present(parent) && !parent.isTextual()) {
      throw refused("parentRunId must be a string");
    }
    JsonNode messages = array(in, "messages", "messages");
    if (messages != null) {
      for (int i = 0; i < messages.size(); i++) {
        JsonNode m = messages.get(i);
        String at = "messages[" + i + "]";
        if (!m.isObject()) {
          throw refused(at + " must be an object");
        }
        JsonNode role = m.get("role");
        if (role == null || !role.isTextual()) {
          throw refused(at + ".role must be a string");
        }
        JsonNode id = m.get("id");
        if (present(id) && !id.isTextual()) {
          throw refused(at + ".id must be a string");
        }
        JsonNode content = m.get("content");
        if (present(content) && !content.isTextual() && !content.isArray()) {
          throw refused(at + ".content must be a string or an array of parts");
        }
      }
    }
    array(in, "tools", "tools");
    array(in, "context", "context");
    JsonNode resume = array(in, "resume", "resume");
    if (resume != null) {
      for (int i = 0; i < resume.size(); i++) {
        JsonNode r = resume.get(i);
        String at = "resume[" + i + "]";
        if (!r.isObject()) {
          throw refused(at + " must be an object {interruptId, status, payload}");
        }
        requireText(r, "interruptId", at + ".interruptId");
        JsonNode status = r.get("status");
        if (status == null || !status.isTextual()
            || !(status.asText().equals("resolved") || status.asText().equals("cancelled"))) {
          throw refused(at + ".status must be resolved or cancelled");
        }
      }
    }
    JsonNode props = in.get("forwardedProps");
    if (present(props)) {
      if (!props.isObject()) {
        throw refused("forwardedProps must be an object");
      }
      JsonNode command = props.get("command");
      if (present(command) && !command.isObject()) {
        throw refused("forwardedProps.command must be an object");
      }
    }
  }

  private static boolean present(JsonNode n) {
    return n != null && !n.isNull();
  }

  private static void requireText(JsonNode in, String field, String name) {
    JsonNode n = in.get(field);
    if (n == null || !n.isTextual() || n.asText().isBlank()) {
      throw refused(name + " is required: a non-blank string");
    }
  }

  /** The array {@code field} of {@code in}, or null when absent or null. */
  private static JsonNode array(JsonNode in, String field, String name) {
    JsonNode n = in.get(field);
    if (!present(n)) {
      return null;
    }
    if (!n.isArray()) {
      throw refused(name + " must be an array");
    }
    return n;
  }

  private static RefusedException refused(String message) {
    return new RefusedException(400, "bad_request", message);
  }
}
