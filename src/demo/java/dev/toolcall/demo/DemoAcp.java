package dev.toolcall.demo;

import dev.toolcall.acp.AcpAgent;
import dev.toolcall.acp.ToolKind;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.runtime.ToolCallRuntime;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code --acp}: the demo's agent (its scripted model and simulated tools) as an Agent Client Protocol agent on stdin
 * and stdout, for an editor or the official ACP client to start as a subprocess. Each prompt plays the script from
 * where the session is: the first runs the whole story (reads, a retried fetch, a typo, the shell command and the
 * deploy that ask the editor for permission, the sub-agent), later ones give the final summary. Nothing but protocol
 * messages is written to stdout.
 */
final class DemoAcp {
  private DemoAcp() {}

  /** Serves until {@code in} ends (the editor quit). */
  static void serve(Demo.Options o, InputStream in, OutputStream out) throws Exception {
    AtomicReference<ToolCallRuntime> runtimeRef = new AtomicReference<>();
    ScriptedModel model = ScriptedModel.agent(o.pace());
    ScriptedModel subModel = ScriptedModel.subAgent(o.pace());
    DemoTools tools = new DemoTools(o.pace(), o.deployTimeout(), runtimeRef::get, ModelClient.streaming(subModel));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all())
            .permissions(p -> p.defaultTimeout(Duration.ofMinutes(2))).build();
        AcpAgent acp = AcpAgent.builder(runtime, id -> Agent.builder(ModelClient.streaming(model), runtime))
            .agentInfo("toolcall-demo", "1").toolKinds(d -> switch (d.name()) {
              case "shell", "deploy" -> ToolKind.EXECUTE;
              case "fetch_url" -> ToolKind.FETCH;
              case "sub_agent" -> ToolKind.THINK;
              default -> d.readOnly() ? ToolKind.READ : ToolKind.OTHER;
            }).build()) {
      runtimeRef.set(runtime);
      acp.serve(in, out);
    } finally {
      model.close();
      subModel.close();
    }
  }
}
