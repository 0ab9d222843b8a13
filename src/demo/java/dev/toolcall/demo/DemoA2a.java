package dev.toolcall.demo;

import dev.toolcall.a2a.A2aServer;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.wire.SessionTokens;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code --a2a}: the demo agent served over A2A ({@link A2aServer}) instead of drawn on the terminal. Each context is a
 * conversation playing the demo's script; the shell and deploy calls make the task {@code input-required} until an A2A
 * client answers them (or their deadline denies them). Prints the agent card's URL and the bearer token of the
 * context {@code demo}, then serves until Enter (or end of input).
 *
 * <p>Options after {@code --a2a}: {@code --port N} (default 8642), {@code --pace FACTOR}.
 */
final class DemoA2a {
  private DemoA2a() {}

  static void serve(String[] args, InputStream in, PrintStream out) throws Exception {
    int port = 8642;
    Pace pace = Pace.NORMAL;
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(next(args, ++i, "--port"));
        case "--pace" -> pace = new Pace(Double.parseDouble(next(args, ++i, "--pace")));
        default -> throw new IllegalArgumentException("unknown argument '" + args[i]
            + "' after --a2a; expected --port N, --pace FACTOR");
      }
    }
    AtomicReference<ToolCallRuntime> runtimeRef = new AtomicReference<>();
    DemoTools tools = new DemoTools(pace, Duration.ofMinutes(5), runtimeRef::get,
        ModelClient.streaming(ScriptedModel.subAgent(pace)));
    SessionTokens tokens = SessionTokens.create();
    String token = tokens.issue("demo");
    Pace p = pace;
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build();
        AgentDirectory agents = AgentDirectory.builder(runtime, ConversationStore.inMemory(),
            id -> Agent.builder(ModelClient.streaming(ScriptedModel.agent(p)), runtime)).build();
        A2aServer server = A2aServer.builder(runtime, agents).access(tokens).port(port)
            .card("toolcall demo agent", "Finds why CI failed, runs the tests and deploys; shell and deploy need"
                + " your approval (the task is input-required until you answer).", "1.0.0")
            .skill("ci-fix", "Fix the build", "Reads the project, runs the tests, deploys the last green build")
            .start()) {
      runtimeRef.set(runtime);
      out.println("A2A agent card: " + server.baseUri() + "/.well-known/agent-card.json");
      out.println("context: demo   token: " + token);
      out.println("Try it with the official client (see the README, 'Other agents (A2A)'):");
      out.println("  A2A_URL=" + server.baseUri() + " A2A_TOKEN=" + token
          + " NODE_PATH=~/.cache/toolcall/a2a-client/node_modules node src/test/node/a2a-try.cjs");
      out.println("Press Enter to stop.");
      out.flush();
      in.read();
    }
  }

  private static String next(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
