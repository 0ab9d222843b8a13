package dev.toolcall.agui;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
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
import dev.toolcall.tool.ToolCallValidation;
import dev.toolcall.tool.ToolCallValidator;
import dev.toolcall.tool.ToolRegistry;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** JSON shapes shared by the AG-UI endpoint and the approval page, and the one place a decision is parsed. */
final class Wire {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Reads what clients post: a key given twice in one object is an error, not the last value. */
  static final ObjectMapper STRICT = new ObjectMapper(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());
  /** The longest reason a person may give with a denial, in characters. */
  static final int MAX_REASON = 2000;

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

  /**
   * Reads a body a client posted: a JSON object in which no object has a key twice (a proxy and this server could
   * read different values of it), or 400 {@code bad_request} naming the key.
   */
  static JsonNode parse(String body) {
    JsonNode n;
    try {
      n = STRICT.readTree(body);
    } catch (JsonProcessingException e) {
      String key = duplicateKey(e);
      throw new RefusedException(400, "bad_request", key != null
          ? "the body has the key \"" + key + "\" more than once in one object" : "the body is not valid JSON");
    }
    if (n == null || !n.isObject()) {
      throw new RefusedException(400, "bad_request", "the body must be a JSON object");
    }
    return n;
  }

  /** The key a parse failed on for being given twice in one object, or null when it failed otherwise. */
  static String duplicateKey(JsonProcessingException e) {
    JsonParser p = e instanceof StreamReadException r ? r.getProcessor() : null;
    if (p != null && String.valueOf(e.getOriginalMessage()).startsWith("Duplicate field")) {
      try {
        return p.currentName();
      } catch (IOException ignored) {
        return "?";
      }
    }
    return null;
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
   * that is not pending, belongs to another session, was made on other arguments, or an answer that does not pass
   * {@link #decision(PermissionRequest, JsonNode, ToolRegistry)} is refused and nothing moves.
   */
  static DecisionResult decide(PermissionService permissions, ToolRegistry registry, String sessionId,
      String requestId, JsonNode answer) {
    if (requestId == null || requestId.isBlank()) {
      throw new RefusedException(400, "bad_request", "requestId is missing");
    }
    PermissionRequest r = permissions.request(requestId).filter(p -> p.sessionId().equals(sessionId))
        // another session's id is said the same way as an unknown one: a foreign id must not tell that it exists
        .orElseThrow(() -> unknownRequest(requestId));
    Decision d = decision(r, answer, registry);
    return decided(requestId, permissions.decide(requestId, d));
  }

  /** The result of a decision that passed every check: a won one, or the refusal that says what won. */
  static DecisionResult decided(String requestId, DecisionResult result) {
    if (result instanceof DecisionResult.Won) {
      return result;
    }
    if (result instanceof DecisionResult.Lost lost) {
      throw new RefusedException(409, "already_answered", "already answered: " + lost.winnerState().wireName());
    }
    if (result instanceof DecisionResult.Stale) {
      throw new RefusedException(409, "stale", "the request's arguments changed; reload and answer again");
    }
    throw unknownRequest(requestId);
  }

  /** The one refusal of an id that is not an open request of the caller's session (never made, answered, foreign). */
  static RefusedException unknownRequest(String requestId) {
    return new RefusedException(404, "unknown_request",
        "no open request " + requestId + " in this session (answered, expired or never made)");
  }

  /**
   * The decision an answer makes on the open request {@code r}, after every check that can be made before deciding:
   * {@code argumentsVersion} (an integer, if given) is the request's current one; {@code decision} is one of
   * {@link #DECISIONS}; {@code reason} (a string, if given) has at most {@value #MAX_REASON} characters; edited
   * {@code arguments} (only with {@code approve_once}: an object, or a string holding one or plain text) fit the
   * tool's schema.
   *
   * @throws RefusedException 400 for a malformed answer, 409 {@code stale} for another arguments version
   */
  static Decision decision(PermissionRequest r, JsonNode a, ToolRegistry registry) {
    if (a == null || !a.isObject()) {
      throw new RefusedException(400, "bad_request", "the answer to request " + r.requestId() + " must be an object");
    }
    JsonNode v = a.get("argumentsVersion");
    if (v != null && !v.isNull()) {
      if (!v.isIntegralNumber() || !v.canConvertToInt()) {
        throw new RefusedException(400, "bad_request", "argumentsVersion must be an integer");
      }
      if (v.asInt() != r.argumentsVersion()) {
        throw new RefusedException(409, "stale", "request " + r.requestId() + " was made on other arguments"
            + " (version " + r.argumentsVersion() + "); reload and answer again");
      }
    }
    JsonNode k = a.get("decision");
    String kind = k != null && k.isTextual() ? k.asText() : "";
    if (!List.of(DECISIONS).contains(kind)) {
      throw new RefusedException(400, "bad_request", "decision must be one of " + String.join(", ", DECISIONS));
    }
    JsonNode why = a.get("reason");
    if (why != null && !why.isNull() && !why.isTextual()) {
      throw new RefusedException(400, "bad_request", "reason must be a string");
    }
    String reason = why == null || why.isNull() ? "" : why.asText().strip();
    if (reason.length() > MAX_REASON) {
      throw new RefusedException(400, "bad_request", "reason is longer than " + MAX_REASON + " characters");
    }
    JsonNode args = a.get("arguments");
    boolean edited = args != null && !args.isNull();
    if (edited && !kind.equals("approve_once")) {
      throw new RefusedException(400, "bad_request", "arguments (an edit) go only with approve_once");
    }
    switch (kind) {
      case "approve_once":
        if (edited) {
          ToolArguments changed = arguments(args);
          ToolCallValidation valid = ToolCallValidator.of(registry).validate(r.toolName(), changed);
          if (valid instanceof ToolCallValidation.Invalid bad) {
            throw new RefusedException(400, "bad_request", "the edited arguments do not fit " + r.toolName()
                + ": " + bad.message());
          }
          return Decision.approveModified(r, changed);
        }
        return Decision.approveOnce(r);
      case "approve_for_session":
        return Decision.approveForSession(r);
      case "approve_always":
        return Decision.approveAlways(r);
      default:
        return Decision.deny(r, reason.isEmpty() ? "the user denied this call" : reason);
    }
  }

  private static ToolArguments arguments(JsonNode args) {
    if (args.isObject()) {
      return ToolArguments.ofJson(args);
    }
    if (args.isTextual()) {
      JsonNode parsed = null;
      try {
        parsed = STRICT.readTree(args.asText());
      } catch (JsonProcessingException e) {
        // not JSON: plain-text arguments
      }
      return parsed != null && parsed.isObject() ? ToolArguments.ofJson(parsed) : ToolArguments.ofText(args.asText());
    }
    throw new RefusedException(400, "bad_request", "arguments must be a JSON object or a string");
  }
}
