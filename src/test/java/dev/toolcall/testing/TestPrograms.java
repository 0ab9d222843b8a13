package dev.toolcall.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where the tests find the programs they run: PostgreSQL's {@code initdb} and {@code pg_ctl}, Node with the AG-UI
 * client, and Chromium with its WebDriver. Each is looked up the same way: the environment variable that names it,
 * when set; else {@code PATH}; else the place Debian's package puts it. A missing program fails the test with a
 * message naming the variable and the command that installs it (the tests never skip). {@code mvn verify} runs
 * {@code .ci/ensure-test-programs.sh} before the tests, which installs what is missing; docs/testing.md lists the
 * variables.
 */
public final class TestPrograms {
  private TestPrograms() {}

  /** The variable naming the folder of PostgreSQL's {@code initdb} and {@code pg_ctl}. */
  public static final String PG_BIN = "TOOLCALL_PG_BIN";
  /** The variable naming Chromium's executable. */
  public static final String CHROMIUM = "TOOLCALL_CHROMIUM";
  /** The variable naming chromedriver's executable. */
  public static final String CHROMEDRIVER = "TOOLCALL_CHROMEDRIVER";
  /** The variable naming Node's executable. */
  public static final String NODE = "TOOLCALL_NODE";
  /** The variable naming nginx's executable. */
  public static final String NGINX = "TOOLCALL_NGINX";
  /** The variable naming the folder the AG-UI client is installed in (its {@code node_modules}'s parent). */
  public static final String AGUI_CLIENT_DIR = "AGUI_CLIENT_DIR";
  /** The variable naming the folder the ACP client SDK is installed in (its {@code node_modules}'s parent). */
  public static final String ACP_CLIENT_DIR = "ACP_CLIENT_DIR";

  private static final String SETUP = "run `bash .ci/ensure-test-programs.sh` (what `mvn verify` runs first: it "
      + "installs Debian's packages when they are missing)";

  /** The folder holding {@code initdb} and {@code pg_ctl}. */
  public static Path postgresBin() {
    return postgresBin(System.getenv());
  }

  static Path postgresBin(Map<String, String> env) {
    Optional<Path> given = named(env, PG_BIN, "a folder holding initdb and pg_ctl", p -> p.resolve("initdb"));
    if (given.isPresent()) {
      return given.get();
    }
    Optional<Path> onPath = onPath(env, "initdb");
    if (onPath.isPresent()) { // a link (/usr/local/bin, Homebrew's bin) to the folder with the other programs
      try {
        return onPath.get().toRealPath().getParent();
      } catch (IOException e) {
        return onPath.get().getParent();
      }
    }
    Path debian = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(debian)) {
      try (Stream<Path> versions = Files.list(debian)) {
        List<Path> found = new ArrayList<>(versions.map(v -> v.resolve("bin"))
            .filter(b -> Files.isExecutable(b.resolve("initdb"))).toList());
        found.sort(Comparator.comparing(p -> versionOf(p.getParent().getFileName().toString())));
        if (!found.isEmpty()) {
          return found.get(found.size() - 1);
        }
      } catch (IOException e) {
        // reported below as not found
      }
    }
    throw new IllegalStateException("PostgreSQL's initdb was found neither in $" + PG_BIN + " nor on PATH nor under "
        + "/usr/lib/postgresql/N/bin: set " + PG_BIN + " to the folder holding initdb and pg_ctl, or set "
        + "TOOLCALL_PG_URL to the JDBC URL of an existing server, or " + SETUP
        + " (Debian: apt-get install -y postgresql; macOS: brew install postgresql)");
  }

  /** Chromium's executable. */
  public static Path chromium() {
    return program(System.getenv(), CHROMIUM, List.of("chromium", "chromium-browser", "google-chrome"),
        "Chromium", "Debian: apt-get install -y chromium chromium-driver");
  }

  /** chromedriver's executable. */
  public static Path chromedriver() {
    return program(System.getenv(), CHROMEDRIVER, List.of("chromedriver"), "chromedriver",
        "Debian: apt-get install -y chromium chromium-driver");
  }

  /** nginx's executable (the multi-instance tests put it in front of three instances). */
  public static Path nginx() {
    Map<String, String> env = new java.util.HashMap<>(System.getenv());
    env.merge("PATH", "/usr/sbin", (a, b) -> a + java.io.File.pathSeparator + b); // Debian installs it there
    return program(env, NGINX, List.of("nginx"), "nginx", "Debian: apt-get install -y nginx-light");
  }

  /** Node's executable. */
  public static Path node() {
    return program(System.getenv(), NODE, List.of("node", "nodejs"), "Node.js",
        "Debian: apt-get install -y nodejs npm");
  }

  /** The folder of the AG-UI client: {@code $AGUI_CLIENT_DIR}, else {@code ~/.cache/toolcall/agui-client}. */
  public static Path aguiClientDir() {
    String dir = System.getenv(AGUI_CLIENT_DIR);
    return dir != null && !dir.isBlank() ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".cache", "toolcall", "agui-client");
  }

  /** The AG-UI client's {@code node_modules}, checked to hold {@code @ag-ui/client}. */
  public static Path aguiClientModules() {
    Path modules = aguiClientDir().resolve("node_modules");
    if (!Files.isRegularFile(modules.resolve("@ag-ui/client/package.json"))) {
      throw new IllegalStateException("the AG-UI client (@ag-ui/client) is not installed in " + modules + ": set "
          + AGUI_CLIENT_DIR + " to the folder whose node_modules holds it, or " + SETUP
          + " (npm install @ag-ui/client@1.0.0 in that folder)");
    }
    return modules;
  }

  /** The folder of the ACP client SDK: {@code $ACP_CLIENT_DIR}, else {@code ~/.cache/toolcall/acp-client}. */
  public static Path acpClientDir() {
    String dir = System.getenv(ACP_CLIENT_DIR);
    Path d = dir != null && !dir.isBlank() ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".cache", "toolcall", "acp-client");
    if (!Files.isRegularFile(d.resolve("node_modules/@agentclientprotocol/sdk/package.json"))) {
      throw new IllegalStateException("the ACP client SDK (@agentclientprotocol/sdk) is not installed in " + d
          + "/node_modules: set " + ACP_CLIENT_DIR + " to the folder whose node_modules holds it, or " + SETUP
          + " (bash .ci/ensure-acp-client.sh)");
    }
    return d;
  }

  static Path program(Map<String, String> env, String variable, List<String> names, String what, String install) {
    Optional<Path> given = named(env, variable, "the " + what + " executable", p -> p);
    if (given.isPresent()) {
      return given.get();
    }
    for (String name : names) {
      Optional<Path> found = onPath(env, name);
      if (found.isPresent()) {
        return found.get();
      }
    }
    for (String name : names) {
      Path debian = Path.of("/usr/bin", name);
      if (Files.isExecutable(debian)) {
        return debian;
      }
    }
    throw new IllegalStateException(what + " was found neither in $" + variable + " nor on PATH (as "
        + String.join(", ", names) + "): set " + variable + " to " + "its executable, or " + SETUP + " (" + install
        + ")");
  }

  /**
   * The path {@code variable} names, when set: it must be what {@code executable} (of the path) makes executable,
   * or the variable is wrong, and saying so beats falling back to another program.
   */
  private static Optional<Path> named(Map<String, String> env, String variable, String what,
      java.util.function.UnaryOperator<Path> executable) {
    String value = env.get(variable);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    Path p = Path.of(value);
    if (!Files.isExecutable(executable.apply(p)) || Files.isDirectory(executable.apply(p))) {
      throw new IllegalStateException(variable + "=" + value + " is not " + what + " (" + executable.apply(p)
          + " is not an executable file): fix or unset " + variable);
    }
    return Optional.of(p);
  }

  private static Optional<Path> onPath(Map<String, String> env, String name) {
    String path = env.get("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  private static int versionOf(String s) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
