package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.presentation.Presenter;
import dev.toolcall.presentation.ToolCallView;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolContent;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolRegistry;
import dev.toolcall.ToolResult;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Rich tool results: text parts, passed-through content and a structured value; the model text derived from them
 * in the one documented way; the structured value checked against the tool's output schema; and large content
 * shared, never copied, by every event and view of the call.
 */
class RichResultTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String s) throws Exception {
    return JSON.readTree(s);
  }

  private static CallResult runOne(Tool tool, List<Event> events) {
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(tool).build()) {
      if (events != null) {
        rt.events().subscribe(EventListener.of(events::add));
      }
      return rt.schedule("s", List.of(CallRequest.of("c1", tool.name(), "{}"))).join().get(0);
    }
  }

  private static ToolDefinition.Builder free(String name) {
    return ToolDefinition.builder(name).description(name).requiresApproval(false);
  }

  @Test
  void aPlainStringIsOneTextPartAndReadsAsItself() {
    ToolResult r = ToolResult.of("3 files");
    assertThat(r.parts()).containsExactly(new ToolContent.Text("3 files"));
    assertThat(r.structured()).isEmpty();
    assertThat(r.content()).isEqualTo("3 files");
    assertThat(new ToolResult("")).isEqualTo(ToolResult.of("")).extracting(ToolResult::content).isEqualTo("");
    assertThat(new Outcome.Completed("x").content()).isEqualTo("x");
  }

  @Test
  void theModelTextJoinsEachPartsTextWithPlaceholdersForWhatIsNotText() throws Exception {
    String png = "iVBORw0KGgo="; // 8 bytes
    ToolResult r = ToolResult.of(ToolContent.text("Screenshot taken."), ToolContent.image("image/png", png),
        new ToolContent.Audio("audio/wav", "AAAA"),
        new ToolContent.ResourceLink("file:///tmp/a.log", "a.log", Optional.of("text/plain")),
        ToolContent.Resource.ofText("file:///tmp/b.txt", "text/plain", "hello from b"),
        ToolContent.Resource.ofBlob("file:///tmp/c.bin", null, "AAECAw=="))
        .withStructured(json("{\"ok\":true}"));
    assertThat(r.content()).isEqualTo("Screenshot taken.\n[image: image/png, 8 bytes]\n[audio: audio/wav, 3 bytes]\n"
        + "[resource link: a.log <file:///tmp/a.log>, text/plain]\nhello from b\n"
        + "[resource: file:///tmp/c.bin, 4 bytes]");
    assertThat(r.isTextOnly()).isFalse();
    assertThat(ToolResult.structured(json("{\"n\": 2, \"s\": \"x\"}")).content()).isEqualTo("{\"n\":2,\"s\":\"x\"}");
    assertThat(new ToolResult(List.of(), Optional.empty()).content()).isEmpty();
    assertThat(ToolContent.image("image/png", "A".repeat(28_000_000)).modelText())
        .isEqualTo("[image: image/png, 20.0 MB]");
  }

  @Test
  void badPartsAreRefusedNamingTheField() {
    assertThatThrownBy(() -> ToolContent.image(" ", "AA")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mimeType");
    assertThatThrownBy(() -> new ToolContent.Resource("u", Optional.empty(), Optional.of("t"), Optional.of("b")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exactly one of text and blob");
    assertThatThrownBy(() -> ToolDefinition.builder("t").outputSchema("[1]").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("output schema of tool 't'");
    Tool broken = Tool.of(free("t").outputSchema("{\"type\": 12}").build(), inv -> ToolResult.of(""));
    assertThatThrownBy(() -> ToolRegistry.of(broken)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the output schema of tool 't'");
  }

  private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"temperature\":{\"type\":\"number\"}},"
      + "\"required\":[\"temperature\"]}";

  @Test
  void aStructuredResultThatMatchesTheOutputSchemaCompletesTheCallWithItKept() throws Exception {
    JsonNode value = json("{\"temperature\": 21.5}");
    Tool weather = Tool.of(free("weather").outputSchema(SCHEMA).build(),
        inv -> ToolResult.of(ToolContent.text("21.5 C")).withStructured(value));
    CallResult r = runOne(weather, null);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Completed.class, c -> {
      assertThat(c.content()).isEqualTo("21.5 C");
      assertThat(c.result().structured()).contains(value);
    });
  }

  @Test
  void aStructuredResultThatBreaksTheOutputSchemaFailsTheCallForTheModel() throws Exception {
    Tool weather = Tool.of(free("weather").outputSchema(SCHEMA).build(),
        inv -> ToolResult.structured(json("{\"temperature\": \"warm\"}")));
    CallResult r = runOne(weather, null);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.TOOL_ERROR);
      assertThat(f.message()).startsWith("The structured result of tool 'weather' does not match its output schema")
          .contains("/temperature");
    });
  }

  @Test
  void aToolWithAnOutputSchemaMustReturnAStructuredValue() {
    Tool weather = Tool.of(free("weather").outputSchema(SCHEMA).build(), inv -> ToolResult.of("21.5 C"));
    CallResult r = runOne(weather, null);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f ->
        assertThat(f.message()).contains("declares an output schema but returned no structured result"));
  }

  @Test
  void aLargeImageIsSharedByEveryEventAndViewNeverCopiedAndTheViewShowsItsPlaceholder() {
    String data = "A".repeat(28_000_000); // 21 MB decoded
    ToolResult returned = ToolResult.of(ToolContent.text("Here is the chart."), ToolContent.image("image/png", data));
    Tool chart = Tool.of(free("chart").build(), inv -> returned);
    List<Event> events = new CopyOnWriteArrayList<>();
    CallResult r = runOne(chart, events);

    Outcome.Completed done = (Outcome.Completed) r.outcome();
    assertThat(done.result()).isSameAs(returned);
    List<ToolCallEvent.StateChanged> ends = events.stream().filter(e -> e instanceof ToolCallEvent.StateChanged)
        .map(e -> (ToolCallEvent.StateChanged) e).filter(e -> e.to() == ToolCallState.COMPLETED).toList();
    assertThat(ends).hasSize(1);
    Outcome.Completed inEvent = (Outcome.Completed) ends.get(0).snapshot().outcome();
    assertThat(((ToolContent.Image) inEvent.result().parts().get(1)).data()).isSameAs(data);

    ToolCallView view = Presenter.create().view(ends.get(0).snapshot());
    assertThat(view.result()).contains("Here is the chart.\n[image: image/png, 20.0 MB]");
    assertThat(done.messageForModel()).hasSizeLessThan(100);
  }
}
