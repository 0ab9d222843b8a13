package dev.toolcall.postgres.readme;

// README:begin instance
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.postgres.PostgresCallStore;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.wire.SessionTokens;
import java.time.Duration;
import javax.sql.DataSource;

/** One instance of a server; run as many as you like on one database, behind any load balancer. */
public final class Instance implements AutoCloseable {
  public final ToolCallRuntime runtime;
  public final AgentDirectory agents;
  public final SessionTokens tokens;

  public Instance(String name, DataSource db, ModelClient model, byte[] tokenKey, Tool... tools) {
    PostgresCallStore store = PostgresCallStore.create(db);
    store.applySchema();                                   // idempotent
    runtime = ToolCallRuntime.builder().tools(tools)
        .sharedStore(store.shared(name, Duration.ofSeconds(30))).build();
    agents = AgentDirectory.builder(runtime, store.conversations(),
        conversationId -> Agent.builder(model, runtime).instructions("You deploy services."))
        .owner(name).build();
    tokens = SessionTokens.signed(tokenKey);               // any instance with the key checks any token
  }

  @Override
  public void close() {
    agents.close();
    runtime.close();                                       // hands its calls over to the other instances
  }
}
// README:end instance
