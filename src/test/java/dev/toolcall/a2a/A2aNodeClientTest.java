package dev.toolcall.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.wire.SessionTokens;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The A2A server driven by the official A2A JavaScript client (@a2a-js/sdk under Node, nobody here wrote it): an
 * approval, a replayed answer, a denial with a reason, an "always" grant a second turn does not ask again, a cancel
 * mid-turn, a request nobody answers until its deadline (seen by resubscribing), and hostile input (foreign, unknown
 * and missing credentials, a foreign task answered, malformed decisions, two clients answering one request, malformed
 * JSON, duplicate keys, a batch, an unknown method, bad params, an oversized body, a cross-site Origin), and the 0.3
 * method names. The script counts its checks; this test asserts the count and what the tools did.
 */
class A2aNodeClientTest {

  static final int CHECKS = 40;

  @Test
  void theOfficialClientDrivesEveryScenario() throws Exception {
    A2aFixtures.Runs runs = new A2aFixtures.Runs();
    SessionTokens tokens = SessionTokens.create();
    Map<String, String> issued = new LinkedHashMap<>();
    for (String ctx : new String[] {"ctx-approve", "ctx-always", "ctx-cancel", "ctx-deadline", "ctx-race",
        "ctx-foreign"}) {
      issued.put(ctx, tokens.issue(ctx));
    }
    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
            .tools(A2aFixtures.tools(runs, Duration.ofMillis(1500))).build();
        AgentDirectory directory = AgentDirectory.builder(runtime, ConversationStore.inMemory(),
            id -> Agent.builder(A2aFixtures.model(), runtime)).build();
        A2aServer server = A2aServer.builder(runtime, directory).access(tokens).start()) {
      String out = A2aFixtures.runClient(Map.of("A2A_URL", server.baseUri().toString(),
          "A2A_TOKENS", new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(issued)), CHECKS);
      assertThat(out).contains(CHECKS + " passed, 0 failed");
      // web, and race once (two answers, one taken); db was denied
      assertThat(runs.deploy).hasValue(2);
      assertThat(runs.release).as("twice: the second under the \"always\" grant").hasValue(2);
      assertThat(runs.quick).as("the request nobody answered never ran").hasValue(0);
      assertThat(runs.slowInterrupted).as("the cancelled tool was interrupted").hasValue(1);
      assertThat(server.openStreams()).isZero();
    }
  }
}
