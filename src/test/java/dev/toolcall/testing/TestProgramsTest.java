package dev.toolcall.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the tests find their programs: the variable first, then PATH, and a failure that says what to do. */
class TestProgramsTest {

  @TempDir
  Path dir;

  private Path executable(String name) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, "#!/bin/sh\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  @Test
  void theVariableWinsOverPath() throws Exception {
    Path named = executable("my-chromium");
    executable("chromium");
    assertThat(TestPrograms.program(Map.of("TOOLCALL_CHROMIUM", named.toString(), "PATH", dir.toString()),
        "TOOLCALL_CHROMIUM", List.of("chromium"), "Chromium", "apt-get install -y chromium")).isEqualTo(named);
  }

  @Test
  void pathIsSearchedInOrder() throws Exception {
    Path found = executable("chromium-browser");
    assertThat(TestPrograms.program(Map.of("PATH", "/nonexistent:" + dir), "TOOLCALL_CHROMIUM",
        List.of("no-such-browser-here", "chromium-browser"), "Chromium", "x")).isEqualTo(found);
  }

  @Test
  void aVariableNamingNoExecutableFailsNamingIt() throws Exception {
    Path plain = Files.writeString(dir.resolve("not-executable"), "");
    assertThatThrownBy(() -> TestPrograms.program(Map.of("TOOLCALL_NODE", plain.toString(), "PATH", dir.toString()),
        "TOOLCALL_NODE", List.of("node"), "Node.js", "x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("TOOLCALL_NODE=" + plain).hasMessageContaining("not an executable file");
  }

  @Test
  void aMissingProgramFailsNamingTheVariableAndTheInstallCommand() {
    assertThatThrownBy(() -> TestPrograms.program(Map.of("PATH", dir.toString()), "TOOLCALL_CHROMEDRIVER",
        List.of("no-such-driver-here"), "chromedriver", "Debian: apt-get install -y chromium chromium-driver"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("set TOOLCALL_CHROMEDRIVER")
        .hasMessageContaining("bash .ci/ensure-test-programs.sh")
        .hasMessageContaining("apt-get install -y chromium chromium-driver");
  }

  @Test
  void postgresBinariesComeFromTheVariableOrFromInitdbOnPath() throws Exception {
    executable("initdb");
    assertThat(TestPrograms.postgresBin(Map.of("TOOLCALL_PG_BIN", dir.toString()))).isEqualTo(dir);
    assertThat(TestPrograms.postgresBin(Map.of("PATH", dir.toString()))).isEqualTo(dir);
    assertThatThrownBy(() -> TestPrograms.postgresBin(Map.of("TOOLCALL_PG_BIN", dir.resolve("none").toString())))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("TOOLCALL_PG_BIN=");
  }
}
