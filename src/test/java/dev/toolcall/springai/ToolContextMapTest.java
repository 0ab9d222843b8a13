package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ToolContext;

/**
 * The tool context the drop-in manager passes reads as the map Spring's own manager builds (a copy of the options'
 * tool context with the history put under {@code TOOL_CALL_HISTORY}): same entries, size, lookups and equality,
 * whether or not the options' context already has a history entry, and it cannot be changed.
 */
class ToolContextMapTest {

  private final List<Message> history = List.of(new UserMessage("hi"));

  private Map<String, Object> springWay(Map<String, Object> options) {
    Map<String, Object> m = new HashMap<>(options);
    m.put(ToolContext.TOOL_CALL_HISTORY, history);
    return m;
  }

  @Test
  void readsAsSpringsCopyWithTheHistory() {
    for (Map<String, Object> options : List.<Map<String, Object>>of(Map.of(),
        Map.of("conversationId", "c1", "user", "ann"),
        Map.of("user", "ann", ToolContext.TOOL_CALL_HISTORY, List.of()))) {
      ToolContextMap view = new ToolContextMap(options, history);
      Map<String, Object> expected = springWay(options);
      assertThat(view).isEqualTo(expected);
      assertThat(expected).isEqualTo(view);
      assertThat(view.hashCode()).isEqualTo(expected.hashCode());
      assertThat(view).hasSize(expected.size());
      assertThat(view.entrySet()).hasSize(expected.size());
      assertThat(view.get(ToolContext.TOOL_CALL_HISTORY)).isSameAs(history);
      assertThat(view.get("user")).isEqualTo(expected.get("user"));
      assertThat(view.containsKey(ToolContext.TOOL_CALL_HISTORY)).isTrue();
      assertThat(view.containsKey("absent")).isFalse();
      assertThat(view.isEmpty()).isFalse();
      assertThat(new ToolContext(view).getToolCallHistory()).isSameAs(history);
    }
  }

  @Test
  void cannotBeChanged() {
    ToolContextMap view = new ToolContextMap(Map.of("user", "ann"), history);
    assertThatThrownBy(() -> view.put("user", "bob")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> view.entrySet().iterator().next().setValue("bob"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> view.entrySet().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThat(view.get("user")).isEqualTo("ann");
  }
}
