package dev.toolcall.runtime;

import static dev.toolcall.internal.StrictJson.array;
import static dev.toolcall.internal.StrictJson.instant;
import static dev.toolcall.internal.StrictJson.integer;
import static dev.toolcall.internal.StrictJson.known;
import static dev.toolcall.internal.StrictJson.object;
import static dev.toolcall.internal.StrictJson.text;

import dev.toolcall.CallRecord;
import dev.toolcall.CorruptSnapshotException;
import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCallOrigin;
import dev.toolcall.ToolCallState;
import dev.toolcall.internal.StrictJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.permission.ArgumentPattern;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The JSON form of a {@link RuntimeSnapshot}, read strictly: every field known, of its type, required unless said
 * otherwise; anything else is a {@link CorruptSnapshotException} naming the entry.
 */
final class RuntimeSnapshotJson {
  static final String FORMAT = "toolcall-lifecycle/runtime-snapshot";

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final Set<String> TOP = Set.of("format", "schemaVersion", "takenAt", "calls", "requestOrder",
      "sessionGrants", "batches");
  private static final Set<String> CALL = Set.of("sessionId", "callId", "toolName", "parentCallId", "origin",
      "createdAt", "state", "version", "arguments", "argumentsVersion", "attempt", "path", "permission", "outcome",
      "label");
  private static final Set<String> OUTCOME = Set.of("state", "content", "kind", "message", "source", "reason");
  private static final Set<String> STEP = Set.of("state", "version", "at");
  private static final Set<String> WAIT = Set.of("requestId", "askedAt", "deadline");
  private static final Set<String> GRANT = Set.of("sessionId", "grantId", "toolName", "match", "arguments",
      "createdAt", "expiresAt");
  private static final Set<String> LEGACY_GRANT = Set.of("sessionId", "grantId", "toolName", "arguments",
      "createdAt", "expiresAt");
  /** The schema version whose grants spelled their arguments in one ambiguous string. */
  static final int LEGACY_SCHEMA = 1;
  /**
   * The document's writer: every character outside ASCII escaped, so any Java string (an id or a result with a lone
   * surrogate too) comes back as it was, whatever the file's encoding is taken to be.
   */
  private static final com.fasterxml.jackson.databind.ObjectWriter WRITER = MAPPER.writerWithDefaultPrettyPrinter()
      .with(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII);

  private RuntimeSnapshotJson() {}

  static String write(RuntimeSnapshot s) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("format", FORMAT);
    root.put("schemaVersion", s.schemaVersion());
    root.put("takenAt", s.takenAt().toString());
    ArrayNode calls = root.putArray("calls");
    for (CallRecord c : s.calls()) {
      call(calls.addObject(), c);
    }
    ArrayNode order = root.putArray("requestOrder");
    s.requestOrder().forEach(order::add);
    ArrayNode batches = root.putArray("batches");
    for (List<Integer> b : s.batches()) {
      ArrayNode a = batches.addArray();
      b.forEach(a::add);
    }
    ArrayNode grants = root.putArray("sessionGrants");
    for (RuntimeSnapshot.SessionGrant g : s.sessionGrants()) {
      ObjectNode n = grants.addObject();
      n.put("sessionId", g.sessionId());
      n.put("grantId", g.grantId());
      n.put("toolName", g.toolName());
      n.put("match", g.arguments().kind().wireName());
      if (g.arguments().kind() != ArgumentPattern.Kind.ANY) {
        n.put("arguments", g.arguments().value());
      }
      n.put("createdAt", g.createdAt().toString());
      if (g.expiresAt() != null) {
        n.put("expiresAt", g.expiresAt().toString());
      }
    }
    try {
      return WRITER.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a runtime snapshot", e); // a tree of strings and numbers
    }
  }

  /** One call as a compact JSON object. */
  static String callJson(CallRecord c) {
    ObjectNode n = MAPPER.createObjectNode();
    call(n, c);
    try {
      return MAPPER.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a call", e);
    }
  }

  private static void call(ObjectNode n, CallRecord c) {
    n.put("sessionId", c.sessionId());
    n.put("callId", c.callId());
    if (!c.label().equals(c.callId())) {
      n.put("label", c.label());
    }
    n.put("toolName", c.toolName());
    if (c.parentCallId() != null) {
      n.put("parentCallId", c.parentCallId());
    }
    n.put("origin", c.origin().name().toLowerCase(Locale.ROOT));
    n.put("createdAt", c.createdAt().toString());
    n.put("state", c.state().wireName());
    n.put("version", c.version());
    n.put("arguments", c.arguments());
    n.put("argumentsVersion", c.argumentsVersion());
    n.put("attempt", c.attempt());
    ArrayNode path = n.putArray("path");
    for (CallRecord.Step p : c.path()) {
      ObjectNode st = path.addObject();
      st.put("state", p.state().wireName());
      st.put("version", p.version());
      st.put("at", p.at().toString());
    }
    if (c.permission() != null) {
      ObjectNode w = n.putObject("permission");
      w.put("requestId", c.permission().requestId());
      w.put("askedAt", c.permission().askedAt().toString());
      w.put("deadline", c.permission().deadline().toString());
    }
    if (c.outcome() != null) {
      ObjectNode o = n.putObject("outcome");
      o.put("state", c.outcome().state().wireName());
      if (c.outcome() instanceof Outcome.Completed done) {
        o.put("content", done.content());
      } else if (c.outcome() instanceof Outcome.Failed f) {
        o.put("kind", f.kind().name().toLowerCase(Locale.ROOT));
        o.put("message", f.message());
      } else if (c.outcome() instanceof Outcome.Denied d) {
        o.put("source", d.source().name().toLowerCase(Locale.ROOT));
        o.put("reason", d.reason());
      } else {
        o.put("reason", ((Outcome.Cancelled) c.outcome()).reason());
      }
    }
  }

  /** A stored outcome: its state and that state's fields. */
  private static Outcome outcome(JsonNode o, String where) {
    object(o, where);
    known(o, OUTCOME, where);
    ToolCallState state = state(text(o, "state", where, true), where);
    try {
      return switch (state) {
        case COMPLETED -> new Outcome.Completed(text(o, "content", where, true));
        case FAILED -> new Outcome.Failed(FailureKind.valueOf(text(o, "kind", where, true).toUpperCase(Locale.ROOT)),
            text(o, "message", where, true));
        case PERMISSION_DENIED -> new Outcome.Denied(DenialSource.valueOf(text(o, "source", where, true)
            .toUpperCase(Locale.ROOT)), text(o, "reason", where, true));
        case CANCELLED -> new Outcome.Cancelled(text(o, "reason", where, true));
        default -> throw new CorruptSnapshotException(where, "state " + state.wireName() + " is not an ending");
      };
    } catch (CorruptSnapshotException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new CorruptSnapshotException(where, "unknown kind or source: " + e.getMessage());
    }
  }

  static RuntimeSnapshot read(String json) {
    JsonNode root = StrictJson.document(json);
    known(root, TOP, "document");
    String format = text(root, "format", "document", true);
    if (!FORMAT.equals(format)) {
      throw new CorruptSnapshotException("format", "format is '" + format + "', not '" + FORMAT + "'");
    }
    int schema = integer(root, "schemaVersion", "document");
    if (schema != RuntimeSnapshot.SCHEMA_VERSION && schema != LEGACY_SCHEMA) {
      throw new CorruptSnapshotException("schemaVersion", "schema version " + schema + " is not "
          + RuntimeSnapshot.SCHEMA_VERSION + (schema > RuntimeSnapshot.SCHEMA_VERSION
          ? " (written by a newer version of the library)" : ""));
    }
    Instant takenAt = instant(root, "takenAt", "document", true);
    List<CallRecord> calls = new ArrayList<>();
    int i = 0;
    for (JsonNode n : array(root, "calls", "document")) {
      calls.add(call(n, "calls[" + i++ + "]"));
    }
    List<String> order = new ArrayList<>();
    i = 0;
    for (JsonNode n : array(root, "requestOrder", "document")) {
      if (!n.isTextual()) {
        throw new CorruptSnapshotException("requestOrder[" + i + "]", "must be a string");
      }
      order.add(n.asText());
      i++;
    }
    List<RuntimeSnapshot.SessionGrant> grants = new ArrayList<>();
    i = 0;
    for (JsonNode n : array(root, "sessionGrants", "document")) {
      grants.add(grant(n, "sessionGrants[" + i++ + "]", schema == LEGACY_SCHEMA));
    }
    if (schema == LEGACY_SCHEMA || !root.has("batches")) {
      if (schema != LEGACY_SCHEMA) {
        throw new CorruptSnapshotException("document", "field 'batches' is missing");
      }
      return new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, takenAt, calls, order, grants);
    }
    List<List<Integer>> batches = new ArrayList<>();
    i = 0;
    for (JsonNode b : array(root, "batches", "document")) {
      String where = "batches[" + i++ + "]";
      if (!b.isArray()) {
        throw new CorruptSnapshotException(where, "must be an array of call indexes");
      }
      List<Integer> batch = new ArrayList<>();
      for (JsonNode n : b) {
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
          throw new CorruptSnapshotException(where, "must be an array of call indexes");
        }
        batch.add(n.intValue());
      }
      batches.add(batch);
    }
    return new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, takenAt, calls, order, grants, batches);
  }

  static CallRecord readCall(String json) {
    JsonNode n;
    try {
      n = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new CorruptSnapshotException("call", "not complete JSON: " + e.getOriginalMessage(), e);
    }
    return call(n, "call");
  }

  private static CallRecord call(JsonNode n, String where) {
    object(n, where);
    known(n, CALL, where);
    String callId = text(n, "callId", where, true);
    where = where + " (call '" + callId + "')";
    String origin = text(n, "origin", where, true);
    ToolCallOrigin o;
    try {
      o = ToolCallOrigin.valueOf(origin.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CorruptSnapshotException(where, "unknown origin '" + origin + "'");
    }
    List<CallRecord.Step> path = new ArrayList<>();
    int k = 0;
    for (JsonNode p : array(n, "path", where)) {
      String pw = where + ".path[" + k++ + "]";
      object(p, pw);
      known(p, STEP, pw);
      try {
        path.add(new CallRecord.Step(state(text(p, "state", pw, true), pw), integer(p, "version", pw),
            instant(p, "at", pw, true)));
      } catch (CorruptSnapshotException e) {
        throw new CorruptSnapshotException(pw, e.why(), e);
      }
    }
    CallRecord.PermissionWait wait = null;
    JsonNode w = n.get("permission");
    if (w != null && !w.isNull()) {
      String ww = where + ".permission";
      object(w, ww);
      known(w, WAIT, ww);
      try {
        wait = new CallRecord.PermissionWait(text(w, "requestId", ww, true), instant(w, "askedAt", ww, true),
            instant(w, "deadline", ww, true));
      } catch (CorruptSnapshotException e) {
        throw new CorruptSnapshotException(ww, e.why(), e);
      }
    }
    Outcome ended = null;
    JsonNode out = n.get("outcome");
    if (out != null && !out.isNull()) {
      ended = outcome(out, where + ".outcome");
    }
    try {
      return new CallRecord(text(n, "sessionId", where, true), callId, text(n, "toolName", where, true),
          text(n, "parentCallId", where, false), o, instant(n, "createdAt", where, true),
          state(text(n, "state", where, true), where), integer(n, "version", where), text(n, "arguments", where, true),
          integer(n, "argumentsVersion", where), integer(n, "attempt", where), path, wait, ended,
          text(n, "label", where, false));
    } catch (CorruptSnapshotException e) {
      throw new CorruptSnapshotException(where, e.why(), e);
    }
  }

  private static RuntimeSnapshot.SessionGrant grant(JsonNode n, String where, boolean legacy) {
    object(n, where);
    known(n, legacy ? LEGACY_GRANT : GRANT, where);
    try {
      return new RuntimeSnapshot.SessionGrant(text(n, "sessionId", where, true), text(n, "grantId", where, true),
          text(n, "toolName", where, true), legacy ? legacyPattern(n, where) : pattern(n, where),
          instant(n, "createdAt", where, true), instant(n, "expiresAt", where, false));
    } catch (CorruptSnapshotException e) {
      throw new CorruptSnapshotException(where, e.why(), e);
    }
  }

  /** A grant's {@code match} and {@code arguments}: its kind and value, apart. */
  private static ArgumentPattern pattern(JsonNode n, String where) {
    ArgumentPattern.Kind kind;
    try {
      kind = ArgumentPattern.Kind.fromWireName(text(n, "match", where, true));
    } catch (IllegalArgumentException e) {
      throw new CorruptSnapshotException(where, "field 'match': " + e.getMessage());
    }
    String value = text(n, "arguments", where, kind != ArgumentPattern.Kind.ANY);
    if (kind == ArgumentPattern.Kind.ANY) {
      if (value != null) {
        throw new CorruptSnapshotException(where, "a grant whose match is 'any' has no field 'arguments'");
      }
      return ArgumentPattern.ANY;
    }
    if (value.isEmpty()) {
      throw new CorruptSnapshotException(where, "field 'arguments' must not be empty for match '" + kind.wireName()
          + "'");
    }
    return new ArgumentPattern(kind, value);
  }

  /** A schema 1 grant: one string, read never wider than it was written. */
  private static ArgumentPattern legacyPattern(JsonNode n, String where) {
    String arguments = text(n, "arguments", where, true);
    try {
      return ArgumentPattern.fromLegacyForm(arguments);
    } catch (IllegalArgumentException e) {
      throw new CorruptSnapshotException(where, "field 'arguments': " + e.getMessage());
    }
  }

  private static ToolCallState state(String wire, String where) {
    try {
      return ToolCallState.fromWireName(wire);
    } catch (IllegalArgumentException e) {
      throw new CorruptSnapshotException(where, e.getMessage());
    }
  }

}
