package dev.toolcall.presentation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Reason;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A call that fails validation goes PENDING -&gt; RUNNING -&gt; FAILED without its tool being entered; the events,
 * the snapshot and the view model let a UI tell that apart from a tool that really ran: the RUNNING change carries
 * {@link Reason#VALIDATING}, {@link ToolCallSnapshot#toolStarted()} is false, and the view's durations name the
 * segment "validating".
 */
class ValidationVsRunningTest {
  final Tool echo = Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true)
      .requiresApproval(false).parameters(schema()).build(), inv -> ToolResult.of("ok"));

  private static com.fasterxml.jackson.databind.JsonNode schema() {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(
          "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void validationFailuresAreToldApartFromToolsThatRan() {
    RecordingListener events = new RecordingListener();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(echo).build()) {
      runtime.events().subscribe(events);
      List<CallResult> results = runtime.schedule("s", List.of(CallRequest.of("unknown", "ehco", "{}"),
          CallRequest.of("invalid", "echo", "{\"n\":\"x\"}"), CallRequest.of("ran", "echo", "{\"n\":1}"))).join();
      Presenter presenter = Presenter.builder().build();
      for (CallResult r : results.subList(0, 2)) {
        ToolCallSnapshot s = r.snapshot();
        assertThat(s.state()).isEqualTo(ToolCallState.FAILED);
        assertThat(s.toolStarted()).as(r.callId()).isFalse();
        ToolCallView v = presenter.view(s);
        assertThat(v.toolStarted()).isFalse();
        assertThat(v.durations()).extracting(d -> v.segmentName(d.state()))
            .containsExactly("pending", "validating");
        assertThat(v.copyText()).contains("validating").doesNotContain("running");
        assertThat(events.eventsOf(r.callId())).filteredOn(e -> e instanceof ToolCallEvent.StateChanged c
            && c.to() == ToolCallState.RUNNING).singleElement()
            .satisfies(e -> assertThat(((ToolCallEvent.StateChanged) e).change()).isEqualTo(Reason.VALIDATING));
      }
      ToolCallSnapshot ran = results.get(2).snapshot();
      assertThat(ran.toolStarted()).isTrue();
      ToolCallView v = presenter.view(ran);
      assertThat(v.toolStarted()).isTrue();
      assertThat(v.durations()).extracting(d -> v.segmentName(d.state())).containsExactly("pending", "running");
    }
  }
}
