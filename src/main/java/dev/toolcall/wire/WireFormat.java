package dev.toolcall.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.toolcall.Change;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.conversation.DecisionReport;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.StateDetail;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.event.ToolSetEvent;
import dev.toolcall.permission.ArgumentPattern;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionKind;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The wire format, version {@value #VERSION}: the JSON form of the library's events, of a turn's interrupts and
 * result, and of the decisions a remote client posts. Every object carries {@code "v": 1}; its shape is the JSON
 * Schema at {@link #SCHEMA_RESOURCE} in the jar ({@link #schemaText()}), described in {@code docs/remote.md}. A later
 * version 1 adds optional fields only; a change that breaks a reader is version 2, with a schema file of its own.
 *
 * <p>What is not in version 1: a grant's argument pattern other than "any arguments" (writing one throws, and a
 * posted session or "always" grant is read as one for any arguments); of a tool's definition in
 * {@code tools.changed}, anything but its name, description, parameters, {@code requiresApproval} and
 * {@code readOnly} (timeouts, retry policy, output schema are the server's business).
 *
 * <p>Failures: the writers throw only for programming errors ({@link NullPointerException}, or
 * {@link IllegalArgumentException} naming the field); the readers throw {@link WireFormatException} with a message
 * written for the client that posted the body (at most ten schema problems listed, at most 1,000 decisions in one
 * body), and nothing is applied. Nothing is logged here.
 *
 * <p>All methods are static, thread-safe and pure; the nodes returned are new and belong to the caller.
 */
public final class WireFormat {
  /** The version of this format, the {@code v} of every object. */
  public static final int VERSION = 1;
  /** The class-path resource of the JSON Schema (draft 2020-12) of this version. */
  public static final String SCHEMA_RESOURCE = "dev/toolcall/wire/toolcall-wire-v1.schema.json";

  private static final ObjectMapper JSON = new ObjectMapper();
  /** Reads what clients post: a key given twice in one object is refused, never read as its last value. */
  private static final ObjectMapper STRICT = new ObjectMapper(com.fasterxml.jackson.core.JsonFactory.builder()
      .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());
  private static final int MAX_DECISIONS = 1000;

  private WireFormat() {}

  /**
   * The JSON Schema of this version, as text, read from the jar each time.
   *
   * @throws IllegalStateException if the resource is missing from the class path (a repackaged jar that dropped it)
   */
  public static String schemaText() {
    try (InputStream in = WireFormat.class.getClassLoader().getResourceAsStream(SCHEMA_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the wire schema " + SCHEMA_RESOURCE + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // --------------------------------------------------------------------------------------------------- events

  /**
   * The JSON form of {@code event}: {@code {"v":1, "type", "sessionId", "sourceId", "version", "timestamp", ...}}
   * with {@code type} one of {@code call.created}, {@code call.state}, {@code call.arguments}, {@code call.output},
   * {@code call.retry}, {@code conversation.state}, {@code tools.changed}. A call's arguments are written as their
   * JSON value, its outcome with the text the model read.
   *
   * @throws NullPointerException if {@code event} is null
   */
  public static ObjectNode event(Event event) {
    Objects.requireNonNull(event, "event");
    ObjectNode o = JSON.createObjectNode();
    o.put("v", VERSION);
    if (event instanceof ToolCallEvent e) {
      ToolCallSnapshot s = e.snapshot();
      o.put("type", callType(e));
      common(o, event);
      o.put("callId", s.callId());
      o.put("toolName", s.toolName());
      o.put("state", s.state().wireName());
      if (e instanceof ToolCallEvent.CallCreated) {
        s.identity().parent().ifPresent(p -> o.put("parentCallId", p));
        o.put("origin", s.identity().origin().name().toLowerCase(java.util.Locale.ROOT));
        o.set("arguments", arguments(s.arguments()));
        o.put("argumentsVersion", s.argumentsVersion());
      } else if (e instanceof ToolCallEvent.StateChanged c) {
        o.put("from", c.from().wireName());
        o.put("to", c.to().wireName());
        o.put("attempt", s.attempt());
        if (c.change() instanceof Change.PermissionAsked asked) {
          o.set("reason", reason(Reason.PERMISSION_REQUIRED));
          ObjectNode r = o.putObject("request");
          r.put("requestId", asked.requestId());
          r.put("argumentsVersion", asked.argumentsVersion());
          r.set("arguments", arguments(s.arguments()));
          r.put("deadline", asked.deadline().toString());
        } else if (c.change() instanceof Reason why) {
          o.set("reason", reason(why));
        }
        if (s.outcome() != null) {
          o.set("outcome", outcome(s.outcome()));
        }
      } else if (e instanceof ToolCallEvent.ArgumentsModified m) {
        o.set("arguments", arguments(s.arguments()));
        o.put("argumentsVersion", s.argumentsVersion());
        o.put("by", m.change().by());
      } else if (e instanceof ToolCallEvent.OutputAppended out) {
        Change.OutputAppended a = out.change();
        o.put("chunk", a.chunk());
        o.put("sequence", a.sequence());
        o.put("dropped", a.dropped());
      } else if (e instanceof ToolCallEvent.RetryScheduled r) {
        Change.RetryScheduled a = r.change();
        o.put("nextAttempt", a.nextAttempt());
        o.put("delayMillis", a.delay().toMillis());
        o.put("failure", a.failure());
      }
    } else if (event instanceof ConversationEvent e) {
      ConversationSnapshot s = e.snapshot();
      o.put("type", "conversation.state");
      common(o, event);
      o.put("conversationId", s.conversationId());
      if (s.previousState() != null) {
        o.put("from", e.from().wireName());
      }
      o.put("to", e.to().wireName());
      o.put("turn", s.turn());
      if (e.reason() != null) {
        o.set("reason", reason(e.reason()));
      }
      StateDetail d = s.detail();
      if (d != null) {
        ObjectNode detail = o.putObject("detail");
        detail.put("error", d.error());
        if (d instanceof StateDetail.ToolError t) {
          detail.put("toolName", t.toolName());
        } else if (d instanceof StateDetail.TransientFailure f) {
          detail.put("retryCount", f.retryCount());
        }
      }
    } else {
      ToolSetEvent e = (ToolSetEvent) event;
      o.put("type", "tools.changed");
      common(o, event);
      strings(o.putArray("added"), e.added());
      strings(o.putArray("removed"), e.removed());
      strings(o.putArray("replaced"), e.replaced());
      ArrayNode defs = o.putArray("definitions");
      for (ToolDefinition d : e.definitions()) {
        ObjectNode t = defs.addObject();
        t.put("name", d.name());
        t.put("description", d.description());
        t.set("parameters", d.parameters().deepCopy());
        t.put("requiresApproval", d.requiresApproval());
        t.put("readOnly", d.readOnly());
      }
    }
    return o;
  }

  private static String callType(ToolCallEvent e) {
    if (e instanceof ToolCallEvent.CallCreated) {
      return "call.created";
    } else if (e instanceof ToolCallEvent.StateChanged) {
      return "call.state";
    } else if (e instanceof ToolCallEvent.ArgumentsModified) {
      return "call.arguments";
    } else if (e instanceof ToolCallEvent.OutputAppended) {
      return "call.output";
    }
    return "call.retry";
  }

  private static void common(ObjectNode o, Event e) {
    o.put("sessionId", e.sessionId());
    o.put("sourceId", e.sourceId());
    o.put("version", e.version());
    o.put("timestamp", e.timestamp().toString());
  }

  private static void strings(ArrayNode a, List<String> values) {
    values.forEach(a::add);
  }

  private static ObjectNode reason(Reason r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("code", r.code());
    o.put("message", r.message());
    return o;
  }

  /** Arguments as JSON: their JSON value (a string for the plain-text form, an array of strings for the list form). */
  private static JsonNode arguments(ToolArguments a) {
    return a.asJson().deepCopy();
  }

  private static ObjectNode outcome(Outcome outcome) {
    ObjectNode o = JSON.createObjectNode();
    o.put("kind", outcome.state().wireName());
    o.put("isError", outcome.isError());
    o.put("message", outcome.messageForModel());
    if (outcome instanceof Outcome.Failed f) {
      o.put("failure", f.kind().name().toLowerCase(java.util.Locale.ROOT));
    } else if (outcome instanceof Outcome.Denied d) {
      o.put("deniedBy", d.source().name().toLowerCase(java.util.Locale.ROOT));
      o.put("reason", d.reason());
    } else if (outcome instanceof Outcome.Cancelled c) {
      o.put("reason", c.reason());
    }
    return o;
  }

  // ------------------------------------------------------------------------------------------- turns, interrupts

  /**
   * The JSON form of an open request of an interrupted turn: {@code {"v":1, "type":"interrupt", "requestId", "callId",
   * "sessionId", "toolName", "arguments", "argumentsVersion", "createdAt", "deadline", "allowed", "responseSchema"}}.
   *
   * @throws IllegalArgumentException if the interrupt's response schema is not JSON
   */
  public static ObjectNode interrupt(Interrupt interrupt) {
    Objects.requireNonNull(interrupt, "interrupt");
    ObjectNode o = JSON.createObjectNode();
    o.put("v", VERSION);
    o.put("type", "interrupt");
    o.put("requestId", interrupt.requestId());
    o.put("callId", interrupt.callId());
    o.put("sessionId", interrupt.sessionId());
    o.put("toolName", interrupt.toolName());
    o.set("arguments", arguments(interrupt.arguments()));
    o.put("argumentsVersion", interrupt.argumentsVersion());
    o.put("createdAt", interrupt.createdAt().toString());
    o.put("deadline", interrupt.deadline().toString());
    ArrayNode allowed = o.putArray("allowed");
    for (DecisionKind k : DecisionKind.values()) {
      if (interrupt.allowed().contains(k)) {
        allowed.add(k.wireName());
      }
    }
    try {
      o.set("responseSchema", JSON.readTree(interrupt.responseSchema()));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("interrupt.responseSchema is not JSON: " + e.getOriginalMessage(), e);
    }
    return o;
  }

  /** The JSON form of what happened to one decision: {@code {"v":1, "type":"decision.result", "requestId", ...}}. */
  public static ObjectNode decisionReport(DecisionReport report) {
    Objects.requireNonNull(report, "report");
    ObjectNode o = JSON.createObjectNode();
    o.put("v", VERSION);
    o.put("type", "decision.result");
    o.put("requestId", report.requestId());
    o.put("status", report.status().wireName());
    o.put("message", report.message());
    return o;
  }

  /**
   * The JSON form of a result of {@link dev.toolcall.permission.PermissionService#decide}: the
   * {@code decision.result} object of {@link #decisionReport} for {@link DecisionReport#of(DecisionResult)}, so
   * {@code "status"} says {@code accepted} (the decision won) or why it did not ({@code already_answered} when the
   * request was resolved before, {@code stale}, {@code unknown_request}), with a sentence for a person. Nothing of the
   * call's snapshot, grant or internal counters is in it.
   */
  public static ObjectNode decisionResult(DecisionResult result) {
    return decisionReport(DecisionReport.of(Objects.requireNonNull(result, "result")));
  }

  /**
   * The JSON form of a waiting permission request, as a web page lists it from
   * {@link dev.toolcall.permission.PermissionService#pending()}: {@code {"v":1, "type":"permission.request",
   * "requestId", "callId", "sessionId", "toolName", "arguments", "argumentsVersion", "createdAt", "deadline"}}.
   * Answer it with a {@code decision} naming {@code requestId} and {@code argumentsVersion} ({@link #parseDecisions}).
   * The deadline is an absolute instant; the request's monotonic deadline tick is the runtime's business and is not
   * written.
   */
  public static ObjectNode request(PermissionRequest request) {
    Objects.requireNonNull(request, "request");
    ObjectNode o = JSON.createObjectNode();
    o.put("v", VERSION);
    o.put("type", "permission.request");
    o.put("requestId", request.requestId());
    o.put("callId", request.callId());
    o.put("sessionId", request.sessionId());
    o.put("toolName", request.toolName());
    o.set("arguments", arguments(request.arguments()));
    o.put("argumentsVersion", request.argumentsVersion());
    o.put("createdAt", request.createdAt().toString());
    o.put("deadline", request.deadline().toString());
    return o;
  }

  /**
   * The JSON form of how a turn ended: {@code {"v":1, "type":"turn.result", "sessionId", "ending", "text",
   * "toolResults", "interrupts", "decisions", "usage"}}.
   *
   * @param sessionId the conversation the turn belongs to
   */
  public static ObjectNode turnResult(String sessionId, TurnResult result) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(result, "result");
    ObjectNode o = JSON.createObjectNode();
    o.put("v", VERSION);
    o.put("type", "turn.result");
    o.put("sessionId", sessionId);
    o.put("ending", result.ending().name().toLowerCase(java.util.Locale.ROOT));
    o.put("text", result.text());
    ArrayNode results = o.putArray("toolResults");
    for (ToolResultMessage m : result.toolResults()) {
      ObjectNode r = results.addObject();
      r.put("callId", m.callId());
      r.put("toolName", m.toolName());
      r.put("content", m.content());
      r.put("isError", m.isError());
    }
    ArrayNode interrupts = o.putArray("interrupts");
    result.interrupts().forEach(i -> interrupts.add(interrupt(i)));
    ArrayNode decisions = o.putArray("decisions");
    result.decisions().forEach(d -> decisions.add(decisionReport(d)));
    ObjectNode usage = o.putObject("usage");
    usage.put("inputTokens", result.usage().inputTokens());
    usage.put("outputTokens", result.usage().outputTokens());
    return o;
  }

  // ------------------------------------------------------------------------------------------------- decisions

  /**
   * The JSON form of {@code decision}, one element of a posted {@code decisions} array: {@code {"requestId",
   * "argumentsVersion", "decision", "arguments"?, "reason"?, "expiry"?}}. Session and "always" grants are written for
   * any arguments ({@link ArgumentPattern#ANY}); a narrower pattern has no wire form in version 1 and is refused.
   *
   * @throws IllegalArgumentException for a grant with an argument pattern other than {@link ArgumentPattern#ANY}
   */
  public static ObjectNode decision(Decision decision) {
    Objects.requireNonNull(decision, "decision");
    ObjectNode o = JSON.createObjectNode();
    o.put("requestId", decision.requestId());
    o.put("argumentsVersion", decision.argumentsVersion());
    o.put("decision", DecisionKind.of(decision).wireName());
    if (decision instanceof Decision.ApproveForSession d) {
      requireAny(d.arguments());
    } else if (decision instanceof Decision.ApproveAlways d) {
      requireAny(d.arguments());
      if (d.expiry() != null) {
        o.put("expiry", d.expiry().toString());
      }
    } else if (decision instanceof Decision.ApproveModified d) {
      o.set("arguments", arguments(d.arguments()));
    } else if (decision instanceof Decision.ModifyAndAsk d) {
      o.set("arguments", arguments(d.arguments()));
    } else if (decision instanceof Decision.Deny d) {
      o.put("reason", d.reasonForModel());
    }
    return o;
  }

  /** The JSON form of a body a client posts: {@code {"v":1, "decisions":[...]}}. */
  public static ObjectNode decisions(List<? extends Decision> decisions) {
    Objects.requireNonNull(decisions, "decisions");
    ObjectNode o = JSON.createObjectNode();
    o.put("v", VERSION);
    ArrayNode a = o.putArray("decisions");
    decisions.forEach(d -> a.add(decision(d)));
    return o;
  }

  private static void requireAny(ArgumentPattern p) {
    if (!ArgumentPattern.ANY.equals(p)) {
      throw new IllegalArgumentException("decision.arguments: only ArgumentPattern.ANY has a wire form in version "
          + VERSION + ", was " + p);
    }
  }

  /**
   * Reads what a client posted, {@code {"v":1, "decisions":[...]}}, into decisions, in order. The body is checked
   * against the schema first; nothing here applies them (see {@link dev.toolcall.conversation.Agent#resumeWith}). An
   * object anywhere in the body that has a key twice is refused (a proxy in front and this server could read
   * different values of it).
   *
   * @throws WireFormatException with a message for the client when the body is not JSON, has a key twice in one
   *     object, has another version, or does not match the schema
   */
  public static List<Decision> parseDecisions(String body) {
    Objects.requireNonNull(body, "body");
    JsonNode root;
    try {
      root = STRICT.readTree(body);
    } catch (com.fasterxml.jackson.core.exc.StreamReadException e) {
      com.fasterxml.jackson.core.JsonParser p = e.getProcessor();
      if (p != null && String.valueOf(e.getOriginalMessage()).startsWith("Duplicate field")) {
        String key;
        try {
          key = p.currentName();
        } catch (IOException unreadable) {
          key = "?";
        }
        throw new WireFormatException("The body has the key \"" + key + "\" more than once in one object; give each"
            + " key once.", List.of(p.getParsingContext().pathAsPointer().toString()));
      }
      throw new WireFormatException("The body is not JSON: " + e.getOriginalMessage(), List.of());
    } catch (JsonProcessingException e) {
      throw new WireFormatException("The body is not JSON: " + e.getOriginalMessage(), List.of());
    }
    return parseDecisions(root);
  }

  /**
   * {@link #parseDecisions(String)} for a body already read as JSON (by whoever read it: a key given twice is only
   * refused by {@link #parseDecisions(String)}, which sees the text).
   *
   * @throws WireFormatException with a message for the client when the body has another version, does not match the
   *     schema, has more than 1,000 decisions, or an edit without arguments or an expiry that is not a positive
   *     ISO-8601 duration
   */
  public static List<Decision> parseDecisions(JsonNode body) {
    Objects.requireNonNull(body, "body");
    if (body.isObject() && body.has("v") && !body.get("v").equals(JSON.getNodeFactory().numberNode(VERSION))) {
      throw new WireFormatException("Unsupported wire version " + body.get("v") + "; this server reads version "
          + VERSION + ".", List.of());
    }
    List<String> problems = validate(body, "#/$defs/decisionBatch");
    if (!problems.isEmpty()) {
      throw new WireFormatException("The decisions do not follow the wire format: " + String.join("; ", problems),
          problems);
    }
    ArrayNode a = (ArrayNode) body.get("decisions");
    if (a.size() > MAX_DECISIONS) {
      throw new WireFormatException("Too many decisions: at most " + MAX_DECISIONS + " in one body.", List.of());
    }
    List<Decision> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      out.add(decision(a.get(i), i));
    }
    return out;
  }

  private static Decision decision(JsonNode d, int i) {
    String id = d.get("requestId").asText();
    int v = d.get("argumentsVersion").asInt();
    DecisionKind kind = DecisionKind.ofWireName(d.get("decision").asText()).orElseThrow();
    switch (kind) {
      case APPROVE_ONCE:
        return new Decision.ApproveOnce(id, v);
      case APPROVE_FOR_SESSION:
        return new Decision.ApproveForSession(id, v, ArgumentPattern.ANY);
      case APPROVE_ALWAYS:
        Duration expiry = null;
        if (d.hasNonNull("expiry")) {
          try {
            expiry = Duration.parse(d.get("expiry").asText());
          } catch (DateTimeParseException e) {
            expiry = Duration.ZERO;
          }
          if (expiry.isZero() || expiry.isNegative()) {
            throw new WireFormatException("decisions[" + i + "].expiry must be a positive ISO-8601 duration such as"
                + " PT1H.", List.of("/decisions/" + i + "/expiry"));
          }
        }
        return new Decision.ApproveAlways(id, v, ArgumentPattern.ANY, expiry);
      case APPROVE_MODIFIED:
        return new Decision.ApproveModified(id, v, editedArguments(d, i));
      case MODIFY_AND_ASK:
        return new Decision.ModifyAndAsk(id, v, editedArguments(d, i));
      default:
        return new Decision.Deny(id, v, d.hasNonNull("reason") ? d.get("reason").asText() : "");
    }
  }

  private static ToolArguments editedArguments(JsonNode d, int i) {
    JsonNode a = d.get("arguments");
    if (a == null) {
      throw new WireFormatException("decisions[" + i + "] edits the arguments but carries none.",
          List.of("/decisions/" + i + "/arguments"));
    }
    return a.isTextual() ? ToolArguments.ofText(a.asText()) : ToolArguments.ofJson(a);
  }

  // ------------------------------------------------------------------------------------------------ validation

  /** The problems of {@code node} against the schema's definition {@code ref} (such as {@code #/$defs/event}). */
  static List<String> validate(JsonNode node, String ref) {
    List<Error> errors = Schemas.compiled(ref).validate(node);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < errors.size() && i < 10; i++) {
      Error e = errors.get(i);
      out.add(e.getInstanceLocation() + ": " + e.getMessage());
    }
    return out;
  }

  /** The compiled schema, loaded once. */
  static final class Schemas {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
        SpecificationVersion.DRAFT_2020_12);
    private static final JsonNode ROOT;
    private static final java.util.concurrent.ConcurrentHashMap<String, Schema> BY_REF =
        new java.util.concurrent.ConcurrentHashMap<>();

    static {
      try {
        ROOT = JSON.readTree(schemaText());
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("the wire schema " + SCHEMA_RESOURCE + " is not JSON", e);
      }
    }

    static Schema compiled(String ref) {
      return BY_REF.computeIfAbsent(ref, r -> {
        ObjectNode wrapper = ROOT.deepCopy();
        wrapper.remove("oneOf");
        wrapper.remove("$id");
        wrapper.put("$ref", r);
        return REGISTRY.getSchema(wrapper);
      });
    }
  }
}
