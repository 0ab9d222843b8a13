package dev.toolcall.agui;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.ToolCallState;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.presentation.StateStyle;
import dev.toolcall.presentation.Theme;
import dev.toolcall.presentation.ToolCallView;
import dev.toolcall.ToolArguments;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/** JSON shapes shared by the AG-UI endpoint and the approval page, and the one place a decision is parsed. */
final class Wire {
  static final ObjectMapper JSON = new ObjectMapper();

  /** The answers a person may give, as the page and AG-UI resume payloads spell them. */
  static final String[] DECISIONS = {"approve_once", "approve_for_session", "approve_always", "deny"};

  private Wire() {}

  /**
   * Checks a body limit, the one rule of both builders ({@link ApprovalServer} hands its limit to the
   * {@link AguiEndpoint} it serves, so the two must accept the same values).
   *
   * @throws IllegalArgumentException if {@code maxBodyBytes} is under 1024
   */
  static int requireBodyLimit(int maxBodyBytes) {
    if (maxBodyBytes < 1024) {
      throw new IllegalArgumentException("maxBodyBytes must be at least 1024, was " + maxBodyBytes);
    }
    return maxBodyBytes;
  }

  static JsonNode parse(String body) {
    try {
      JsonNode n = JSON.readTree(body);
      if (n == null || !n.isObject()) {
        throw new RefusedException(400, "bad_request", "the body must be a JSON object");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw new RefusedException(400, "bad_request", "the body is not valid JSON");
    }
  }

  static String text(JsonNode n) {
    try {
      return JSON.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One SSE frame: {@code data: <json>} and a blank line (JSON has no raw newlines). */
  static String frame(JsonNode n) {
    return "data: " + text(n) + "\n\n";
  }

  /** A named SSE frame. */
  static String frame(String event, JsonNode n) {
    return "event: " + event + "\ndata: " + text(n) + "\n\n";
  }

  /** The JSON Schema of an answer, as AG-UI's {@code responseSchema} carries it. */
  static ObjectNode responseSchema() {
    ObjectNode s = JSON.createObjectNode();
    s.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    s.put("type", "object");
    ObjectNode p = s.putObject("properties");
    ArrayNode e = p.putObject("decision").putArray("enum");
    for (String d : DECISIONS) {
      e.add(d);
    }
    p.putObject("reason").put("type", "string").put("description", "for the model, with deny");
    p.putObject("arguments").put("description", "edited arguments: approve these instead of the model's");
    p.putObject("argumentsVersion").put("type", "integer").put("description", "the version the answer was made on");
    s.putArray("required").add("decision");
    s.put("additionalProperties", false);
    return s;
  }

  /** A pending request as the page shows it (also the {@code metadata} of an AG-UI interrupt). */
  static ObjectNode request(PermissionRequest r) {
    ObjectNode n = JSON.createObjectNode();
    n.put("requestId", r.requestId());
    n.put("callId", r.callId());
    n.put("sessionId", r.sessionId());
    n.put("toolName", r.toolName());
    n.put("arguments", r.arguments().raw());
    n.put("argumentsVersion", r.argumentsVersion());
    n.put("createdAt", r.createdAt().toString());
    n.put("deadline", r.deadline().toString());
    return n;
  }

  /** The presentation view model of a call, as JSON (the page draws it; names as in ToolCallView). */
  static ObjectNode view(ToolCallView v, Optional<PermissionRequest> request) {
    ObjectNode n = JSON.createObjectNode();
    n.put("callId", v.callId());
    n.put("toolName", v.toolName());
    v.parentCallId().ifPresent(p -> n.put("parentCallId", p));
    n.put("depth", v.depth());
    n.put("arguments", v.arguments());
    n.put("argumentsPreview", v.argumentsPreview());
    n.put("state", v.state().wireName());
    n.put("displayState", v.displayState().wireName());
    n.put("terminal", v.isTerminal());
    style(n.putObject("style"), v.style());
    v.countdown().ifPresent(c -> n.putObject("countdown").put("deadline", c.deadline().toString())
        .put("totalMillis", c.total().toMillis()).put("remainingMillis", c.remaining().toMillis()));
    n.put("attempt", v.attempt());
    ArrayNode out = n.putArray("outputTail");
    v.outputTail().forEach(out::add);
    v.result().ifPresent(r -> n.put("result", r));
    v.error().ifPresent(e -> n.put("error", e));
    n.put("elapsedMillis", v.elapsed().toMillis());
    n.put("version", v.version());
    n.put("toolStarted", v.toolStarted());
    request.ifPresent(r -> n.set("request", request(r)));
    return n;
  }

  /** A pending request whose call this process never saw (a restart, another instance): a view from the request. */
  static ObjectNode view(PermissionRequest r, Theme theme, Instant now) {
    ObjectNode n = JSON.createObjectNode();
    n.put("callId", r.callId());
    n.put("toolName", r.toolName());
    n.put("depth", 0);
    n.put("arguments", r.arguments().raw());
    n.put("argumentsPreview", r.arguments().raw());
    n.put("state", ToolCallState.PERMISSION_PENDING.wireName());
    n.put("displayState", ToolCallState.PERMISSION_PENDING.wireName());
    n.put("terminal", false);
    style(n.putObject("style"), theme.style(ToolCallState.PERMISSION_PENDING));
    long total = Math.max(0, r.deadline().toEpochMilli() - r.createdAt().toEpochMilli());
    long remaining = Math.max(0, r.deadline().toEpochMilli() - now.toEpochMilli());
    n.putObject("countdown").put("deadline", r.deadline().toString()).put("totalMillis", total)
        .put("remainingMillis", remaining);
    n.put("attempt", 0);
    n.putArray("outputTail");
    n.put("elapsedMillis", Math.max(0, now.toEpochMilli() - r.createdAt().toEpochMilli()));
    n.put("version", 0);
    n.put("toolStarted", false);
    n.set("request", request(r));
    return n;
  }

  private static void style(ObjectNode n, StateStyle s) {
    n.put("icon", s.icon());
    n.put("color", s.color().name().toLowerCase(Locale.ROOT));
    n.put("animation", s.animation().name().toLowerCase(Locale.ROOT));
    n.put("label", s.label());
    if (s.badge() != null && !s.badge().text().isEmpty()) {
      n.put("badge", s.badge().text());
    }
  }

  /**
   * Decides {@code requestId} of {@code sessionId} with the answer {@code answer} ({@code decision}, {@code reason},
   * {@code arguments}, {@code argumentsVersion}). Everything is checked before {@code decide} is called: a request
   * that is not pending, belongs to another session, was made on other arguments, or an answer that does not parse
   * is refused and nothing moves.
   */
  static DecisionResult decide(PermissionService permissions, String sessionId, String requestId, JsonNode answer) {
    if (requestId == null || requestId.isBlank()) {
      throw new RefusedException(400, "bad_request", "requestId is missing");
    }
    PermissionRequest r = permissions.request(requestId).orElseThrow(() ->
        new RefusedException(404, "unknown_request", "no open request " + requestId + " (answered, expired or never made)"));
    if (!r.sessionId().equals(sessionId)) {
      // Said the same way as an unknown id: a foreign id must not tell that it exists.
      throw new RefusedException(404, "unknown_request", "no open request " + requestId + " (answered, expired or never made)");
    }
    JsonNode v = answer.get("argumentsVersion");
    if (v != null && !v.isNull() && (!v.canConvertToInt() || v.asInt() != r.argumentsVersion())) {
      throw new RefusedException(409, "stale", "the request's arguments changed (version " + r.argumentsVersion()
          + "); reload and answer again");
    }
    Decision d = decision(r, answer);
    DecisionResult result = permissions.decide(requestId, d);
    if (result instanceof DecisionResult.Won) {
      return result;
    }
    if (result instanceof DecisionResult.Lost lost) {
      throw new RefusedException(409, "already_answered", "already answered: " + lost.winnerState().wireName());
    }
    if (result instanceof DecisionResult.Stale) {
      throw new RefusedException(409, "stale", "the request's arguments changed; reload and answer again");
    }
    throw new RefusedException(404, "unknown_request", "no open request " + requestId + " (answered, expired or never made)");
  }

  static Decision decision(PermissionRequest r, JsonNode a) {
    String kind = a.path("decision").asText("");
    JsonNode args = a.get("arguments");
    String reason = a.path("reason").asText("").strip();
    if (reason.length() > 2000) {
      throw new RefusedException(400, "bad_request", "reason is longer than 2000 characters");
    }
    switch (kind) {
      case "approve_once":
        if (args != null && !args.isNull()) {
          return Decision.approveModified(r, arguments(args));
        }
        return Decision.approveOnce(r);
      case "approve_for_session":
        return Decision.approveForSession(r);
      case "approve_always":
        return Decision.approveAlways(r);
      case "deny":
        return Decision.deny(r, reason.isEmpty() ? "the user denied this call" : reason);
      default:
        throw new RefusedException(400, "bad_request",
            "decision must be one of approve_once, approve_for_session, approve_always, deny");
    }
  }

  private static ToolArguments arguments(JsonNode args) {
    if (args.isObject()) {
      return ToolArguments.ofJson(args);
    }
    if (args.isTextual()) {
      try {
        JsonNode parsed = JSON.readTree(args.asText());
        if (parsed != null && parsed.isObject()) {
          return ToolArguments.ofJson(parsed);
        }
      } catch (JsonProcessingException e) {
        // falls through: text arguments
      }
      return ToolArguments.ofText(args.asText());
    }
    throw new RefusedException(400, "bad_request", "arguments must be a JSON object or a string");
  }
}
