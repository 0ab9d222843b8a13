package dev.toolcall;

import dev.toolcall.runtime.RuntimeSnapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 16, part 2: a corpus of corrupt runtime snapshots. Each is refused with a {@link CorruptSnapshotException}
 * that names the bad entry, and a runtime given a corrupt document restores nothing.
 */
class CorruptSnapshotTest {
  static final Instant T0 = Instant.parse("2026-11-25T09:00:00Z");

  /** A valid document: one waiting call, one approved, one running, and a session grant. */
  static String valid() {
    CallRecord waiting = new CallRecord("s", "c1", "shell", null, ToolCallOrigin.MODEL, T0,
        ToolCallState.PERMISSION_PENDING, 1, "{\"command\":\"ls\"}", 0, 0,
        List.of(step(ToolCallState.PENDING, 0), step(ToolCallState.PERMISSION_PENDING, 1)),
        new CallRecord.PermissionWait("perm-1", T0, T0.plus(Duration.ofHours(1))));
    CallRecord approved = new CallRecord("s", "c2", "shell", null, ToolCallOrigin.MODEL, T0,
        ToolCallState.PERMISSION_APPROVED, 2, "{\"command\":\"make\"}", 0, 0,
        List.of(step(ToolCallState.PENDING, 0), step(ToolCallState.PERMISSION_PENDING, 1),
            step(ToolCallState.PERMISSION_APPROVED, 2)), null);
    CallRecord running = new CallRecord("s", "c3", "fetch", null, ToolCallOrigin.MODEL, T0,
        ToolCallState.RUNNING, 5, "{}", 0, 1,
        List.of(step(ToolCallState.PENDING, 0), step(ToolCallState.RUNNING, 1)), null);
    return new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, T0, List.of(waiting, approved, running),
        List.of("perm-1"), List.of(new RuntimeSnapshot.SessionGrant("s", "g1", "shell",
            dev.toolcall.permission.ArgumentPattern.prefix("git"), T0, null))).toJson();
  }

  static CallRecord.Step step(ToolCallState s, int v) {
    return new CallRecord.Step(s, v, T0);
  }

  static Stream<Arguments> corpus() {
    String v = valid();
    return Stream.of(
        corrupt("truncated", s -> s.substring(0, s.length() / 2), "document"),
        corrupt("empty", s -> "", "document"),
        corrupt("not an object", s -> "[1,2]", "document"),
        corrupt("trailing garbage", s -> s + " {}", "document"),
        corrupt("a future schema version", s -> s.replace("\"schemaVersion\" : 2", "\"schemaVersion\" : 3"),
            "schemaVersion"),
        corrupt("a grant's unknown match", s -> s.replace("\"match\" : \"prefix\"", "\"match\" : \"glob\""),
            "sessionGrants[0]"),
        corrupt("a grant's match missing", s -> s.replace("\"match\" : \"prefix\",", ""), "sessionGrants[0]"),
        corrupt("a prefix grant without its prefix", s -> s.replace("\"arguments\" : \"git\",", ""),
            "sessionGrants[0]"),
        corrupt("an any grant with arguments", s -> s.replace("\"match\" : \"prefix\"", "\"match\" : \"any\""),
            "sessionGrants[0]"),
        corrupt("an exact grant on nothing", s -> s.replace("\"arguments\" : \"git\"", "\"arguments\" : \"\""),
            "sessionGrants[0]"),
        corrupt("another format", s -> s.replace("toolcall-lifecycle/runtime-snapshot", "something-else"), "format"),
        corrupt("an unknown state", s -> s.replaceFirst("\"state\" : \"permission_approved\"",
            "\"state\" : \"paused\""), "calls[1]"),
        corrupt("an unknown field", s -> s.replaceFirst("\"toolName\" : \"fetch\"",
            "\"toolName\" : \"fetch\", \"priority\" : 3"), "calls[2]"),
        corrupt("a negative version", s -> s.replaceFirst("\"version\" : 5", "\"version\" : -5"), "calls[2]"),
        corrupt("a version below its path", s -> s.replaceFirst("\"version\" : 2,\n", "\"version\" : 1,\n"),
            "calls[1]"),
        corrupt("a path that breaks the matrix", s -> s.replace("\"state\" : \"permission_pending\",\n      "
            + "\"version\" : 1,\n      \"at\" : \"2026-11-25T09:00:00Z\"\n    }, {\n      \"state\" : "
            + "\"permission_approved\"", "\"state\" : \"running\",\n      \"version\" : 1,\n      \"at\" : "
            + "\"2026-11-25T09:00:00Z\"\n    }, {\n      \"state\" : \"permission_approved\""), "calls[1]"),
        corrupt("a path not from pending", s -> s.replaceFirst("\"path\" : \\[ \\{\n      \"state\" : \"pending\"",
            "\"path\" : [ {\n      \"state\" : \"permission_pending\""), "calls[0]"),
        corrupt("a duplicate call id", s -> s.replace("\"callId\" : \"c2\"", "\"callId\" : \"c1\""), "calls[1]"),
        corrupt("a terminal call", s -> s.replaceFirst("\"state\" : \"running\",\n  ", "\"state\" : \"completed\","
            + "\n  "), "calls[2]"),
        corrupt("a waiting call without its request", s -> s.replaceFirst("\"permission\" : \\{[^}]*\\}", "\"x\":1")
            .replace(", \"x\":1", ""), "calls[0]"),
        corrupt("a request order that misses a request", s -> s.replace("\"requestOrder\" : [ \"perm-1\" ]",
            "\"requestOrder\" : [ ]"), "requestOrder"),
        corrupt("a deadline before the request", s -> s.replace("\"deadline\" : \"2026-11-25T10:00:00Z\"",
            "\"deadline\" : \"2026-11-25T08:00:00Z\""), "calls[0] (call 'c1').permission"),
        corrupt("a malformed date", s -> s.replaceFirst("\"createdAt\" : \"2026-11-25T09:00:00Z\"",
            "\"createdAt\" : \"yesterday\""), "calls[0]"),
        corrupt("a number where a string goes", s -> s.replace("\"arguments\" : \"{}\"", "\"arguments\" : {}"),
            "calls[2]"),
        corrupt("a duplicate grant", s -> s.replace("\"sessionGrants\" : [ {", "\"sessionGrants\" : [ {"
            + " \"sessionId\" : \"s\", \"grantId\" : \"g1\", \"toolName\" : \"x\", \"match\" : \"any\", \"createdAt\""
            + " : \"2026-11-25T09:00:00Z\" }, {"), "sessionGrants[1]"));
  }

  static Arguments corrupt(String what, UnaryOperator<String> edit, String entry) {
    return Arguments.of(what, edit, entry);
  }

  @Test
  void theValidDocumentReads() {
    assertThat(RuntimeSnapshot.fromJson(valid()).calls()).hasSize(3);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void aCorruptDocumentIsRefusedNamingTheEntry(String what, UnaryOperator<String> edit, String entry) {
    String bad = edit.apply(valid());
    assertThat(bad).as("the corpus edit changed something").isNotEqualTo(valid());
    assertThatThrownBy(() -> RuntimeSnapshot.fromJson(bad)).as(what)
        .isInstanceOfSatisfying(CorruptSnapshotException.class, e -> assertThat(e.entry()).startsWith(entry));
  }

  /** A grant whose pattern is not one the library writes is refused before anything is read, naming the grant. */
  @Test
  void aCorruptGrantRefusesTheDocument() {
    String bad = valid().replace("\"match\" : \"prefix\"", "\"match\" : \"any\"");
    assertThatThrownBy(() -> RuntimeSnapshot.fromJson(bad)).isInstanceOfSatisfying(CorruptSnapshotException.class,
        e -> assertThat(e.entry()).isEqualTo("sessionGrants[0]"));
  }

  /** A UTF-8 byte order mark, as editors add, is not corruption: the document reads. */
  @Test
  void aByteOrderMarkIsNotCorruption() {
    assertThat(RuntimeSnapshot.fromJson("\uFEFF" + valid())).isEqualTo(RuntimeSnapshot.fromJson(valid()));
  }
}
