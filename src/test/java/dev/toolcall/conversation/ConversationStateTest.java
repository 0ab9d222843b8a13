package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.fsm.IllegalTransitionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Pins the conversation's transition table: the seed's edges, the added ones, and the docs generated from them. */
class ConversationStateTest {

  record Edge(ConversationState from, ConversationState to) {
    @Override
    public String toString() {
      return from + " -> " + to;
    }
  }

  /** The 19 edges of the seed's diagram (03-conversation-state-machine-plan.md, section 3.1). */
  static final List<Edge> SEED_EDGES = List.of(
      new Edge(IDLE, PROCESSING_USER_MESSAGE),
      new Edge(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE),
      new Edge(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE),
      new Edge(AWAITING_LLM_RESPONSE, TRANSIENT_FAILURE),
      new Edge(PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL),
      new Edge(PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS),
      new Edge(PROCESSING_LLM_RESPONSE, HANDLING_TOOL_ERROR),
      new Edge(PROCESSING_LLM_RESPONSE, IDLE),
      new Edge(AWAITING_TOOL_APPROVAL, EXECUTING_TOOLS),
      new Edge(AWAITING_TOOL_APPROVAL, GENERATING_RESPONSE),
      new Edge(EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS),
      new Edge(EXECUTING_TOOLS, TRANSIENT_FAILURE),
      new Edge(EXECUTING_TOOLS, FAILED),
      new Edge(PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE),
      new Edge(HANDLING_TOOL_ERROR, GENERATING_RESPONSE),
      new Edge(GENERATING_RESPONSE, AWAITING_LLM_RESPONSE),
      new Edge(TRANSIENT_FAILURE, AWAITING_LLM_RESPONSE),
      new Edge(TRANSIENT_FAILURE, EXECUTING_TOOLS),
      new Edge(TRANSIENT_FAILURE, FAILED));

  /** Every edge added to the seed's, each for the reason documented in docs/conversation.md. */
  static final List<Edge> ADDED_EDGES = List.of(
      // the turn stops (user abort, or a guard), from every busy state without such an edge in the seed
      new Edge(PROCESSING_USER_MESSAGE, IDLE),
      new Edge(AWAITING_LLM_RESPONSE, IDLE),
      new Edge(AWAITING_TOOL_APPROVAL, IDLE),
      new Edge(EXECUTING_TOOLS, IDLE),
      new Edge(PROCESSING_TOOL_RESULTS, IDLE),
      new Edge(HANDLING_TOOL_ERROR, IDLE),
      new Edge(GENERATING_RESPONSE, IDLE),
      new Edge(TRANSIENT_FAILURE, IDLE),
      // a model error that retrying cannot heal
      new Edge(AWAITING_LLM_RESPONSE, FAILED),
      // the user writes again after a failure
      new Edge(FAILED, PROCESSING_USER_MESSAGE),
      // invalid tool calls found by their tools once they ran
      new Edge(EXECUTING_TOOLS, HANDLING_TOOL_ERROR));

  static Set<Edge> allEdges() {
    LinkedHashSet<Edge> all = new LinkedHashSet<>(SEED_EDGES);
    all.addAll(ADDED_EDGES);
    return all;
  }

  @Test
  void tableHoldsExactlyTheSeedEdgesPlusTheAddedOnes() {
    assertThat(SEED_EDGES).doesNotHaveDuplicates().hasSize(19);
    assertThat(ADDED_EDGES).doesNotHaveDuplicates().doesNotContainAnyElementsOf(SEED_EDGES).hasSize(11);
    List<Edge> actual = new ArrayList<>();
    for (ConversationState from : values()) {
      for (ConversationState to : from.successors()) {
        actual.add(new Edge(from, to));
      }
    }
    assertThat(actual).containsExactlyInAnyOrderElementsOf(allEdges());
    assertThat(TABLE.edgeCount()).isEqualTo(30);
    assertThat(values()).hasSize(11);
  }

  /** All 121 ordered pairs of states, each checked against the pinned edge set. */
  @Test
  void everyPairOfStatesAgreesWithTheEdgeSet() {
    Set<Edge> edges = allEdges();
    int pairs = 0;
    for (ConversationState from : values()) {
      for (ConversationState to : values()) {
        pairs++;
        boolean legal = edges.contains(new Edge(from, to));
        assertThat(TABLE.allows(from, to)).as("%s -> %s", from, to).isEqualTo(legal);
        assertThat(from.canTransitionTo(to)).as("%s -> %s", from, to).isEqualTo(legal);
        if (legal) {
          TABLE.check(from, to);
        } else {
          assertThatThrownBy(() -> TABLE.check(from, to)).as("%s -> %s", from, to)
              .isInstanceOf(IllegalTransitionException.class)
              .hasMessageContaining(from + " -> " + to)
              .hasMessageContaining(from.successors().toString());
        }
      }
    }
    assertThat(pairs).isEqualTo(121);
  }

  @Test
  void everyBusyStateCanStopTheTurnAndOnlyIdleAndFailedAcceptANewMessage() {
    for (ConversationState s : values()) {
      assertThat(s.isBusy()).as("%s busy", s).isEqualTo(s != IDLE && s != FAILED);
      assertThat(s.canTransitionTo(IDLE)).as("%s -> IDLE", s).isEqualTo(s.isBusy());
      assertThat(s.canTransitionTo(PROCESSING_USER_MESSAGE)).as("%s -> PROCESSING_USER_MESSAGE", s)
          .isEqualTo(!s.isBusy());
      assertThat(TABLE.isTerminal(s)).as("%s terminal", s).isFalse();
    }
    assertThat(TABLE.initial()).isEqualTo(IDLE);
  }

  @Test
  void wireNamesAreSnakeCaseAndRoundTrip() {
    assertThat(values()).extracting(ConversationState::wireName).containsExactly("idle",
        "processing_user_message", "awaiting_llm_response", "processing_llm_response", "awaiting_tool_approval",
        "executing_tools", "processing_tool_results", "handling_tool_error", "generating_response",
        "transient_failure", "failed");
    for (ConversationState s : values()) {
      assertThat(fromWireName(s.wireName())).isSameAs(s);
    }
    assertThatThrownBy(() -> fromWireName("Idle")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("idle, processing_user_message");
    assertThatThrownBy(() -> fromWireName(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("wireName");
  }

  static final Path DOC = Path.of("docs", "conversation.md");
  static final String BEGIN = "<!-- BEGIN GENERATED: conversation state diagram (ConversationStateTest) -->";
  static final String END = "<!-- END GENERATED: conversation state diagram -->";

  static String generatedDiagram() {
    return "```mermaid\n" + TABLE.toMermaid(ConversationState::wireName) + "```\n";
  }

  /**
   * The diagram in docs/conversation.md is the one generated from {@link ConversationState#TABLE}. Run with
   * {@code -Dtoolcall.docs.write=true} to rewrite it after changing the table.
   */
  @Test
  void docsDiagramIsGeneratedFromTheTable() throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int b = doc.indexOf(BEGIN);
    int e = doc.indexOf(END);
    assertThat(b).as("begin marker in %s", DOC).isNotNegative();
    assertThat(e).as("end marker in %s", DOC).isGreaterThan(b);
    String current = doc.substring(b + BEGIN.length() + 1, e);
    String wanted = generatedDiagram();
    if (Boolean.getBoolean("toolcall.docs.write") && !current.equals(wanted)) {
      Files.writeString(DOC, doc.substring(0, b + BEGIN.length() + 1) + wanted + doc.substring(e),
          StandardCharsets.UTF_8);
      current = wanted;
    }
    assertThat(current).as("generated diagram in %s (regenerate with -Dtoolcall.docs.write=true)", DOC)
        .isEqualTo(wanted);
  }

  /** Every added edge is named in the docs with its label, so none can be added silently. */
  @Test
  void docsNameEveryAddedEdge() throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    String prose = doc.substring(doc.indexOf(END));
    for (Edge edge : ADDED_EDGES) {
      assertThat(prose).as("docs name %s", edge)
          .contains("`" + edge.from().wireName() + " -> " + edge.to().wireName() + "`");
    }
  }
}
