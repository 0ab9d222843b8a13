package dev.toolcall;

import dev.toolcall.runtime.RuntimeSnapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26, defect 11: what a snapshot file holds comes back as it was, or is refused where it enters. Before, an id
 * with a lone surrogate came back from the file as {@code lone?surrogate} (the restored call answered the model for
 * an id it never used), instants centuries away were clamped through ticks and came back changed, and a UTF-8 byte
 * order mark made the document corrupt.
 */
class SnapshotTextTest {
  static final Instant T0 = Instant.parse("2026-11-26T09:00:00Z");
  @TempDir Path dir;

  static CallRecord call(String session, String id, String arguments, Instant createdAt) {
    return new CallRecord(session, id, "shell", null, ToolCallOrigin.MODEL, createdAt,
        ToolCallState.PENDING, 0, arguments, 0, 0,
        List.of(new CallRecord.Step(ToolCallState.PENDING, 0, createdAt)), null);
  }

  @Test
  void idsAndTextWithLoneSurrogatesSurviveTheFile() throws Exception {
    RuntimeSnapshot doc = new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, T0,
        List.of(call("se\udc00ssion", "lone\ud800surrogate", "{\"command\":\"echo \ud83d\ude00 \ud800\"}", T0)),
        List.of(), List.of());
    Path file = dir.resolve("snapshot.json");
    doc.writeTo(file);
    String text = Files.readString(file, StandardCharsets.UTF_8);
    assertThat(text).as("written as ASCII").matches("\\p{ASCII}*");
    RuntimeSnapshot back = RuntimeSnapshot.readFrom(file);
    assertThat(back).isEqualTo(doc);
    assertThat(back.calls().get(0).callId()).isEqualTo("lone\ud800surrogate");
  }

  @Test
  void aByteOrderMarkBeforeTheFileIsSkipped() throws Exception {
    RuntimeSnapshot doc = new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, T0, List.of(call("s", "c", "{}", T0)),
        List.of(), List.of());
    Path file = dir.resolve("bom.json");
    Files.writeString(file, "\uFEFF" + doc.toJson(), StandardCharsets.UTF_8);
    assertThat(RuntimeSnapshot.readFrom(file)).isEqualTo(doc);
  }

  /**
   * A moment of a call centuries from the call's creation cannot be held exactly by a runtime's ticks: refused, named.
   * A call created centuries from the document's own time, all of its moments near its creation, is held exactly.
   */
  @Test
  void aMomentCenturiesFromItsCallsCreationIsRefusedNamingTheCall() {
    for (Instant far : List.of(T0.plus(Duration.ofDays(300 * 365L)), T0.minus(Duration.ofDays(300 * 365L)))) {
      assertThatThrownBy(() -> new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, T0,
          List.of(new CallRecord("s", "c", "shell", null, ToolCallOrigin.MODEL, T0, ToolCallState.PENDING, 0, "{}", 0,
              0, List.of(new CallRecord.Step(ToolCallState.PENDING, 0, far)), null)), List.of(), List.of()))
          .isInstanceOfSatisfying(CorruptSnapshotException.class, e -> assertThat(e.entry()).startsWith("calls[0]"))
          .hasMessageContaining("more than 292 years from the call's createdAt");
      assertThat(new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, T0, List.of(call("s", "c", "{}", far)),
          List.of(), List.of()).calls()).hasSize(1);
    }
  }
}
