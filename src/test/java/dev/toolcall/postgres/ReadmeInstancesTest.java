package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolResult;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.postgres.readme.Instance;
import dev.toolcall.testing.Printed;
import dev.toolcall.testing.Readme;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The README's "Several instances": its {@code Instance} class, two of them on one PostgreSQL database, a turn that
 * interrupts on one and is answered on the other; a token issued by one is accepted by the other. Checks the README
 * shows exactly this code.
 */
@ExtendWith(Printed.Capture.class)
class ReadmeInstancesTest {

  @Test
  void aTurnAskedOnOneInstanceIsAnsweredOnAnother(Printed printed) throws Exception {
    DataSource db = PgCluster.database("toolcall_readme_instances");
    DataSource dbA = Pool.of(TwoRuntimesTest.second("toolcall_readme_instances"), 4);
    DataSource dbB = Pool.of(TwoRuntimesTest.second("toolcall_readme_instances"), 4);
    AtomicInteger deploys = new AtomicInteger();
    Tool deploy = Tool.of(ToolDefinition.builder("deploy").requiresApproval(true).build(), inv -> {
      deploys.incrementAndGet();
      return ToolResult.of("shop deployed");
    });
    ModelClient model = ModelClient.blocking(request -> request.lastMessage() instanceof ToolResultMessage r
        ? ModelResponse.text("Done: " + r.content())
        : ModelResponse.toolCalls("", List.of(new ToolCallRequest("call_1", "deploy", "{}"))));
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);

    // README:begin instances
    try (Instance a = new Instance("instance-a", dbA, model, key, deploy);
        Instance b = new Instance("instance-b", dbB, model, key, deploy)) {
      String token = a.tokens.issue("conv-7");            // give it to the person's page or client
      TurnResult asked = a.agents.send("conv-7", "Deploy the shop").toCompletableFuture().join();
      Interrupt ask = asked.interrupts().get(0);           // nothing of the turn waits in A's memory
      if (b.tokens.mayDecide("conv-7", token)) {           // the answer lands on B
        TurnResult done = b.agents.resumeWith("conv-7",
            List.of(new Decision.ApproveOnce(ask.requestId(), ask.argumentsVersion()))).toCompletableFuture().join();
        System.out.println(done.text());                   // Done: shop deployed
      }
    }
    // README:end instances
    assertThat(printed.text().strip()).isEqualTo("Done: shop deployed");
    assertThat(deploys).hasValue(1);
    Readme.assertShows("src/test/java/dev/toolcall/postgres/ReadmeInstancesTest.java", "instances");
    Readme.assertShows("src/test/java/dev/toolcall/postgres/readme/Instance.java", "instance");
  }
}
