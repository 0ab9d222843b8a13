package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallRuntime;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolException;
import dev.toolcall.tool.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * The turn loop against a random scripted model.
 *
 * <p>Invariant: whatever the model answers (final text, tool calls of tools that succeed, fail, do not exist or
 * return directly, transient, fatal or model-switch errors), and whether or not the user aborts right after sending,
 * the turn's stage completes; the conversation ends {@code idle} (or {@code failed} exactly when the turn failed),
 * having taken only edges of {@link ConversationState#TABLE}; no more than {@link TurnLimits#maxRoundTrips()} round
 * trips were made; every tool call the model asked for ends terminal and has exactly one result message, right after
 * its assistant message, in request order.
 */
class AgentProperties {

  private static final String[] TOOLS = {"echo", "broken", "missing", "lookup"};

  /** One scripted model answer: kind 0 text, 1 tool calls, 2 transient error, 3 fatal error, 4 model switch. */
  record Step(int kind, List<int[]> calls) {}

  @Provide
  Arbitrary<List<Step>> scripts() {
    Arbitrary<int[]> call = Combinators.combine(Arbitraries.integers().between(0, TOOLS.length - 1),
        Arbitraries.integers().between(0, 2)).as((t, a) -> new int[] {t, a});
    Arbitrary<Step> step = Combinators.combine(Arbitraries.frequency(Tuple.of(2, 0), Tuple.of(6, 1),
        Tuple.of(2, 2), Tuple.of(1, 3), Tuple.of(1, 4)),
        call.list().ofMinSize(1).ofMaxSize(3)).as(Step::new);
    return step.list().ofMinSize(0).ofMaxSize(8);
  }

  @Property(tries = 100)
  void everyTurnEndsWithOneResultPerCallWithinItsLimits(@ForAll("scripts") List<Step> script,
      @ForAll @IntRange(min = 1, max = 4) int maxRoundTrips, @ForAll @IntRange(min = 2, max = 3) int loopThreshold,
      @ForAll @IntRange(min = 1, max = 3) int maxCallsPerTool, @ForAll boolean abort) throws Exception {
    ScriptedModel model = new ScriptedModel();
    int id = 0;
    for (Step s : script) {
      switch (s.kind()) {
        case 0 -> model.thenText("answer");
        case 1 -> {
          List<dev.toolcall.conversation.ToolCallRequest> calls = new ArrayList<>();
          for (int[] c : s.calls()) {
            calls.add(ScriptedModel.call("c" + (id++), TOOLS[c[0]], "{\"a\":" + c[1] + "}"));
          }
          model.thenCalls(calls.toArray(new dev.toolcall.conversation.ToolCallRequest[0]));
        }
        case 2 -> model.thenFail(ModelException.Kind.NETWORK);
        case 3 -> model.thenFail(ModelException.Kind.INVALID_REQUEST);
        default -> model.thenFail(ModelException.Kind.QUOTA_EXHAUSTED);
      }
    }
    TurnLimits limits = TurnLimits.builder().maxRoundTrips(maxRoundTrips).loopThreshold(loopThreshold)
        .maxCallsPerTool(maxCallsPerTool)
        .modelRetry(new RetryPolicy(2, Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0)).build();

    try (ToolCallRuntime runtime = runtime()) {
      Agent agent = Agent.builder(model, runtime).conversationId("p").limits(limits).build();
      var stage = agent.send("go");
      if (abort) {
        agent.abort();
      }
      TurnResult r = stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
      Statistics.collect(r.ending());

      ConversationSnapshot end = agent.conversation().snapshot();
      assertThat(end.state()).isEqualTo(r.ending() == TurnResult.Ending.FAILED ? ConversationState.FAILED
          : ConversationState.IDLE);
      List<ConversationSnapshot> versions = end.versions();
      for (int i = 1; i < versions.size(); i++) {
        assertThat(versions.get(i - 1).state().canTransitionTo(versions.get(i).state()))
            .as("edge %s -> %s", versions.get(i - 1).state(), versions.get(i).state()).isTrue();
      }
      assertThat(end.roundTrips()).isLessThanOrEqualTo(maxRoundTrips);
      assertThat(model.requests().size()).isLessThanOrEqualTo(maxRoundTrips * 2);
      assertThat(r.calls()).allSatisfy(c -> assertThat(c.snapshot().isTerminal()).isTrue());

      List<Message> messages = agent.messages();
      Map<String, Integer> resultsPerCall = new HashMap<>();
      for (int i = 0; i < messages.size(); i++) {
        if (messages.get(i) instanceof AssistantMessage a) {
          for (int k = 0; k < a.toolCalls().size(); k++) {
            Message next = messages.get(i + 1 + k);
            assertThat(next).isInstanceOf(ToolResultMessage.class);
            assertThat(((ToolResultMessage) next).callId()).isEqualTo(a.toolCalls().get(k).id());
          }
        } else if (messages.get(i) instanceof ToolResultMessage t) {
          resultsPerCall.merge(t.callId(), 1, Integer::sum);
        }
      }
      assertThat(resultsPerCall.values()).allMatch(n -> n == 1);
      assertThat(r.toolResults()).extracting(ToolResultMessage::callId)
          .containsExactlyElementsOf(resultsPerCall.keySet().stream().sorted(
              (x, y) -> Integer.compare(Integer.parseInt(x.substring(1)), Integer.parseInt(y.substring(1))))
              .toList());
      for (CallResult c : r.calls()) {
        assertThat(resultsPerCall).containsKey(c.callId());
      }
    }
  }

  private static ToolCallRuntime runtime() {
    Tool echo = Tool.of(ToolDefinition.builder("echo").description("echoes").requiresApproval(false).build(),
        inv -> ToolResult.of("echo " + inv.arguments().raw()));
    Tool broken = Tool.of(ToolDefinition.builder("broken").description("fails").requiresApproval(false).build(),
        inv -> {
          throw new ToolException("it broke");
        });
    Tool lookup = Tool.of(ToolDefinition.builder("lookup").description("answers").requiresApproval(false)
        .returnDirect(true).build(), inv -> ToolResult.of("42"));
    return ToolCallRuntime.builder().tools(echo, broken, lookup)
        .permissions(p -> p.approvalMode(ApprovalMode.ALLOW_ALL)).build();
  }
}
