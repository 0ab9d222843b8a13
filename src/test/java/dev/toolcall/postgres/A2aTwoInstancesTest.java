package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.a2a.A2aFixtures;
import dev.toolcall.a2a.A2aServer;
import dev.toolcall.a2a.TaskStore;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.wire.SessionTokens;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two A2A servers on one PostgreSQL, each with its own pool, runtime ({@code store.shared(..)}), directory
 * ({@code store.conversations()}) and task store ({@link TaskStore#jdbc}), driven by the official A2A client under
 * Node: a task that A's turn left input-required is read on B, answered on B (B loads the conversation and runs the
 * approved tool), read completed on A, and a replay on A is refused.
 */
class A2aTwoInstancesTest {

  private static final String DB = "toolcall_a2a";

  @BeforeAll
  static void schema() {
    DataSource db = PgCluster.database(DB);
    PostgresCallStore.create(db).applySchema();
  }

  @Test
  void aTaskStartedOnOneInstanceIsAnsweredOnAnother() throws Exception {
    A2aFixtures.Runs runsA = new A2aFixtures.Runs();
    A2aFixtures.Runs runsB = new A2aFixtures.Runs();
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    SessionTokens tokensA = SessionTokens.signed(key);
    SessionTokens tokensB = SessionTokens.signed(key);
    String token = tokensA.issue("ctx-two");
    DataSource poolA = Pool.of(TwoRuntimesTest.second(DB), 4);
    DataSource poolB = Pool.of(TwoRuntimesTest.second(DB), 4);
    PostgresCallStore storeA = PostgresCallStore.create(poolA);
    PostgresCallStore storeB = PostgresCallStore.create(poolB);
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(A2aFixtures.tools(runsA, Duration.ofHours(1)))
            .sharedStore(storeA.shared("a", Duration.ofSeconds(30))).build();
        ToolCallRuntime b = ToolCallRuntime.builder().tools(A2aFixtures.tools(runsB, Duration.ofHours(1)))
            .sharedStore(storeB.shared("b", Duration.ofSeconds(30))).build();
        AgentDirectory dirA = AgentDirectory.builder(a, storeA.conversations(),
            id -> Agent.builder(A2aFixtures.model(), a)).owner("a").build();
        AgentDirectory dirB = AgentDirectory.builder(b, storeB.conversations(),
            id -> Agent.builder(A2aFixtures.model(), b)).owner("b").build();
        A2aServer serverA = A2aServer.builder(a, dirA).access(tokensA).tasks(TaskStore.jdbc(poolA)).start();
        A2aServer serverB = A2aServer.builder(b, dirB).access(tokensB).tasks(TaskStore.jdbc(poolB)).start()) {
      A2aFixtures.runClient(Map.of("A2A_MODE", "two", "A2A_URL", serverA.baseUri().toString(),
          "A2A_URL_B", serverB.baseUri().toString(),
          "A2A_TOKENS", new ObjectMapper().writeValueAsString(Map.of("ctx-two", token))), 6);
      assertThat(runsA.deploy).as("A asked, and did not run the tool").hasValue(0);
      assertThat(runsB.deploy).as("B ran the approved tool once").hasValue(1);
    }
  }
}
