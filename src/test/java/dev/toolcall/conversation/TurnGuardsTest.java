package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.conversation.GuardDecision.Verdict;
import dev.toolcall.tool.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TurnGuardsTest {

  static ToolCallRequest call(int i, String name, String args) {
    return new ToolCallRequest("c" + i, name, args);
  }

  static List<ToolCallRequest> calls(String name, String args, int n) {
    List<ToolCallRequest> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(call(i, name, args));
    }
    return out;
  }

  @Test
  void loopIsDetectedAtTheThresholdOfIdenticalCallsInARow() {
    TurnLimits limits = TurnLimits.builder().loopThreshold(3).build();
    assertThat(TurnGuards.checkToolCall(limits, calls("grep", "{\"q\":1}", 1), call(9, "grep", "{\"q\":1}")))
        .isEqualTo(GuardDecision.ALLOWED);
    GuardDecision d = TurnGuards.checkToolCall(limits, calls("grep", "{\"q\":1}", 2), call(9, "grep", "{\"q\":1}"));
    assertThat(d.verdict()).isEqualTo(Verdict.LOOP_DETECTED);
    assertThat(d.endsTurn()).isTrue();
    assertThat(d.message()).contains("'grep'", "3 times in a row");
    // same JSON, other key order and whitespace: still the same arguments
    List<ToolCallRequest> earlier = List.of(call(1, "grep", "{\"a\":1,\"b\":[2]}"), call(2, "grep", "{ \"b\": [2], \"a\": 1 }"));
    assertThat(TurnGuards.checkToolCall(limits, earlier, call(3, "grep", "{\"b\":[2],\"a\":1}")).verdict())
        .isEqualTo(Verdict.LOOP_DETECTED);
  }

  @Test
  void aDifferentCallInBetweenOrDifferentArgumentsBreakTheRun() {
    TurnLimits limits = TurnLimits.builder().loopThreshold(3).build();
    List<ToolCallRequest> broken = List.of(call(1, "grep", "x"), call(2, "ls", "x"), call(3, "grep", "x"));
    assertThat(TurnGuards.checkToolCall(limits, broken, call(4, "grep", "x")).allowed()).isTrue();
    List<ToolCallRequest> varied = List.of(call(1, "grep", "{\"q\":1}"), call(2, "grep", "{\"q\":2}"));
    assertThat(TurnGuards.checkToolCall(limits, varied, call(3, "grep", "{\"q\":2}")).allowed()).isTrue();
    List<ToolCallRequest> notJson = List.of(call(1, "shell", "ls  -l"), call(2, "shell", "ls -l"));
    assertThat(TurnGuards.checkToolCall(limits, notJson, call(3, "shell", "ls -l")).allowed())
        .as("raw text that is not JSON compares exactly").isTrue();
    assertThat(TurnGuards.sameArguments("", "")).isTrue();
    assertThat(TurnGuards.sameArguments("", "{}")).isFalse();
    assertThat(TurnGuards.sameArguments("{\"a\":1}", "{\"a\":1.0}")).isFalse();
  }

  @Test
  void totalLimitFailsTheCallWithAMessageAndTheTurnGoesOn() {
    TurnLimits limits = TurnLimits.builder().maxToolCallsPerTurn(3).build();
    List<ToolCallRequest> earlier = List.of(call(1, "a", "1"), call(2, "b", "2"));
    assertThat(TurnGuards.checkToolCall(limits, earlier, call(3, "c", "3")).allowed()).isTrue();
    List<ToolCallRequest> full = List.of(call(1, "a", "1"), call(2, "b", "2"), call(3, "c", "3"));
    GuardDecision d = TurnGuards.checkToolCall(limits, full, call(4, "d", "4"));
    assertThat(d.verdict()).isEqualTo(Verdict.OVER_TOTAL_LIMIT);
    assertThat(d.endsTurn()).isFalse();
    assertThat(d.message()).contains("3 tool calls", "limit is 3", "answer with what you have");
  }

  @Test
  void perToolLimitCountsOnlyThatToolAndHonoursOverrides() {
    TurnLimits limits = TurnLimits.builder().maxCallsPerTool(2).maxCallsOf("shell", 1).loopThreshold(10).build();
    List<ToolCallRequest> earlier = List.of(call(1, "grep", "1"), call(2, "ls", "x"), call(3, "grep", "2"));
    GuardDecision d = TurnGuards.checkToolCall(limits, earlier, call(4, "grep", "3"));
    assertThat(d.verdict()).isEqualTo(Verdict.OVER_TOOL_LIMIT);
    assertThat(d.endsTurn()).isFalse();
    assertThat(d.message()).contains("'grep'", "2 times", "limit is 2");
    assertThat(TurnGuards.checkToolCall(limits, earlier, call(4, "ls", "y")).allowed()).isTrue();
    assertThat(TurnGuards.checkToolCall(limits, List.of(call(1, "shell", "a")), call(2, "shell", "b")).verdict())
        .isEqualTo(Verdict.OVER_TOOL_LIMIT);
    assertThat(limits.limitFor("shell")).isEqualTo(1);
    assertThat(limits.limitFor("grep")).isEqualTo(2);
  }

  @Test
  void loopWinsOverTheCountLimits() {
    TurnLimits limits = TurnLimits.builder().maxToolCallsPerTurn(2).loopThreshold(3).build();
    assertThat(TurnGuards.checkToolCall(limits, calls("t", "x", 2), call(9, "t", "x")).verdict())
        .isEqualTo(Verdict.LOOP_DETECTED);
  }

  @Test
  void roundTripLimitStopsTheTurn() {
    TurnLimits limits = TurnLimits.builder().maxRoundTrips(2).build();
    assertThat(TurnGuards.checkRoundTrip(limits, 0).allowed()).isTrue();
    assertThat(TurnGuards.checkRoundTrip(limits, 1).allowed()).isTrue();
    GuardDecision d = TurnGuards.checkRoundTrip(limits, 2);
    assertThat(d.verdict()).isEqualTo(Verdict.OVER_ROUND_TRIP_LIMIT);
    assertThat(d.endsTurn()).isTrue();
    assertThat(d.message()).contains("limit of 2 model requests");
    assertThatThrownBy(() -> TurnGuards.checkRoundTrip(limits, -1)).hasMessageContaining("roundTripsSoFar");
  }

  @Test
  void modelRetryFollowsThePolicyAndStopsWhenUsedUpOrNotTransient() {
    TurnLimits limits = TurnLimits.builder()
        .modelRetry(new RetryPolicy(3, Duration.ofMillis(100), 2.0, Duration.ofSeconds(1), 0)).build();
    assertThat(limits.maxModelRetries()).isEqualTo(2);
    ModelException net = ModelException.of(ModelException.Kind.NETWORK, "reset");
    assertThat(TurnGuards.modelRetryDelay(limits, net, 1, 0.5)).contains(Duration.ofMillis(100));
    assertThat(TurnGuards.modelRetryDelay(limits, net, 2, 0.5)).contains(Duration.ofMillis(200));
    assertThat(TurnGuards.modelRetryDelay(limits, net, 3, 0.5)).isEmpty();
    ModelException fatal = ModelException.of(ModelException.Kind.AUTHENTICATION, "denied");
    assertThat(TurnGuards.modelRetryDelay(limits, fatal, 1, 0.5)).isEmpty();
    ModelException quota = ModelException.of(ModelException.Kind.QUOTA_EXHAUSTED, "quota");
    assertThat(TurnGuards.modelRetryDelay(limits, quota, 1, 0.5)).isEmpty();
    ModelException slowDown = ModelException.rateLimited("429", Duration.ofSeconds(5));
    assertThat(TurnGuards.modelRetryDelay(limits, slowDown, 1, 0.5)).contains(Duration.ofSeconds(5));
    ModelException shortAsk = ModelException.rateLimited("429", Duration.ofMillis(1));
    assertThat(TurnGuards.modelRetryDelay(limits, shortAsk, 1, 0.5)).contains(Duration.ofMillis(100));
    assertThatThrownBy(() -> TurnGuards.modelRetryDelay(limits, net, 0, 0.5)).hasMessageContaining("retryCount");
    assertThatThrownBy(() -> TurnGuards.modelRetryDelay(limits, net, 1, 1.0)).hasMessageContaining("random");
    TurnLimits noRetry = TurnLimits.builder().modelRetry(RetryPolicy.NONE).build();
    assertThat(TurnGuards.modelRetryDelay(noRetry, net, 1, 0.5)).isEmpty();
  }

  @Test
  void limitsAreValidatedNamingTheParameter() {
    assertThat(TurnLimits.defaults()).isEqualTo(TurnLimits.builder().build());
    assertThat(TurnLimits.defaults().maxRoundTrips()).isEqualTo(TurnLimits.DEFAULT_MAX_ROUND_TRIPS);
    assertThatThrownBy(() -> TurnLimits.builder().maxRoundTrips(0)).hasMessageContaining("maxRoundTrips must be >= 1");
    assertThatThrownBy(() -> TurnLimits.builder().maxToolCallsPerTurn(0)).hasMessageContaining("maxToolCallsPerTurn");
    assertThatThrownBy(() -> TurnLimits.builder().maxCallsPerTool(-1)).hasMessageContaining("maxCallsPerTool");
    assertThatThrownBy(() -> TurnLimits.builder().loopThreshold(1)).hasMessageContaining("loopThreshold must be >= 2");
    assertThatThrownBy(() -> TurnLimits.builder().maxCallsOf("bad name", 1)).hasMessageContaining("toolName");
    assertThatThrownBy(() -> TurnLimits.builder().maxCallsOf("ok", 0)).hasMessageContaining("limit");
    assertThatThrownBy(() -> TurnLimits.builder().modelRetry(null)).hasMessageContaining("modelRetry");
    assertThatThrownBy(() -> new TurnLimits(1, 1, 1, Map.of("t", 0), 2, RetryPolicy.NONE))
        .hasMessageContaining("perToolLimits value for 't'");
    assertThatThrownBy(() -> new GuardDecision(Verdict.LOOP_DETECTED, "")).hasMessageContaining("message");
    assertThatThrownBy(() -> new GuardDecision(Verdict.ALLOWED, "why")).hasMessageContaining("message");
  }


  /** Loop detection compares one JSON value each: text after the value makes the arguments different. */
  @Test
  void argumentsWithTextAfterTheJsonAreNotTheSameArguments() {
    assertThat(TurnGuards.sameArguments("{\"a\":1} x", "{\"a\":1}")).isFalse();
    assertThat(TurnGuards.sameArguments("{\"a\":1}{\"a\":1}", "{\"a\":1}")).isFalse();
    assertThat(TurnGuards.sameArguments("{\"a\":1,\"b\":2}", "{ \"b\": 2, \"a\": 1 }")).isTrue();
    assertThat(TurnGuards.sameArguments("{\"a\":1,\"a\":2}", "{\"a\":2}")).as("duplicate keys are not JSON here")
        .isFalse();
  }
}
