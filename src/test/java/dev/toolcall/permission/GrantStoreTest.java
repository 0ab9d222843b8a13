package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.ToolArguments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrantStoreTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir
  Path dir;

  @Test
  void inMemoryAddFindRevokeAndExpiry() {
    GrantStore store = GrantStore.inMemory();
    store.add(new Grant("a", "shell", ArgumentPattern.parse("npm test:*"), T0, T0.plusSeconds(60)));
    assertThat(store.find("shell", ToolArguments.ofText("npm test"), T0)).isPresent();
    assertThat(store.find("shell", ToolArguments.ofText("npm tests"), T0)).isEmpty();
    assertThat(store.find("shell", ToolArguments.ofText("npm test"), T0.plusSeconds(60))).as("expired").isEmpty();
    assertThat(store.revoke("a")).isTrue();
    assertThat(store.revoke("a")).isFalse();
    assertThat(store.find("shell", ToolArguments.ofText("npm test"), T0)).isEmpty();
  }

  @Test
  void jsonFileSurvivesAReopenAndWritesAtomically() throws IOException {
    Path file = dir.resolve("grants.json");
    GrantStore store = GrantStore.jsonFile(file);
    assertThat(store.grants()).isEmpty();
    store.add(new Grant("a", "shell", ArgumentPattern.parse("npm test:*"), T0, null));
    store.add(new Grant("b", "write_file", ArgumentPattern.ANY, T0, T0.plusSeconds(5)));
    store.add(new Grant("c", "shell", ArgumentPattern.exact("git status"), T0, null));
    assertThat(store.revoke("c")).isTrue();

    GrantStore reopened = GrantStore.jsonFile(file);
    assertThat(reopened.grants()).isEqualTo(store.grants());
    assertThat(reopened.grants()).extracting(Grant::id).containsExactly("a", "b");
    assertThat(reopened.grants().get(1).expiresAt()).isEqualTo(T0.plusSeconds(5));
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).as("no temp file left")
          .containsExactlyInAnyOrder("grants.json", "grants.json.lock");
    }
    assertThat(Files.readString(file)).contains("\"version\" : 2")
        .contains("\"match\" : \"prefix\"", "\"arguments\" : \"npm test\"");
  }

  @Test
  void aMalformedFileIsRefusedNamingIt() throws IOException {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"version\":7}");
    assertThatThrownBy(() -> GrantStore.jsonFile(file)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad.json");
    Files.writeString(file, "{\"version\":1,\"grants\":[{\"id\":\"x\"}]}");
    assertThatThrownBy(() -> GrantStore.jsonFile(file)).hasMessageContaining("grant #0");
  }

  @Test
  void aFailedWriteLeavesTheOldFileAndTheOldList() throws IOException {
    Path sub = dir.resolve("sub");
    Path file = sub.resolve("grants.json");
    GrantStore store = GrantStore.jsonFile(file);
    store.add(new Grant("a", "shell", ArgumentPattern.ANY, T0, null));
    String before = Files.readString(file);
    assertThat(sub.toFile().setWritable(false)).isTrue();
    try {
      if (Files.isWritable(sub)) {
        return; // running as root: permissions are not enforced
      }
      assertThatThrownBy(() -> store.add(new Grant("b", "shell", ArgumentPattern.ANY, T0, null)))
          .hasMessageContaining("grants.json");
      assertThat(store.grants()).extracting(Grant::id).containsExactly("a");
      assertThat(Files.readString(file)).isEqualTo(before);
    } finally {
      sub.toFile().setWritable(true);
    }
  }

  @Test
  void grantsCompareToolNamesExactly() {
    Grant g = new Grant("a", "shell", ArgumentPattern.ANY, T0, null);
    for (String other : List.of("Shell", "shell\u200b", "\uff53hell")) {
      assertThat(g.covers(other, ToolArguments.empty(), T0)).as(other).isFalse();
    }
    assertThat(g.covers("shell", ToolArguments.empty(), T0)).isTrue();
  }
}
