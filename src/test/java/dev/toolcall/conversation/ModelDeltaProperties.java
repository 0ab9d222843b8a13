package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Properties of the delta protocol and its assembler. */
class ModelDeltaProperties {

  @Provide
  Arbitrary<ModelResponse> responses() {
    Arbitrary<String> text = Arbitraries.strings().ofMaxLength(20);
    Arbitrary<String> name = Arbitraries.of("read_file", "grep", "shell");
    Arbitrary<List<ToolCallRequest>> calls = Combinators.combine(name, text).as((n, a) -> new String[] {n, a})
        .list().ofMaxSize(5).map(list -> {
          List<ToolCallRequest> out = new ArrayList<>();
          for (int i = 0; i < list.size(); i++) {
            out.add(new ToolCallRequest("call_" + i, list.get(i)[0], list.get(i)[1]));
          }
          return out;
        });
    return Combinators.combine(text, calls, Arbitraries.of(StopReason.class)).as(ModelResponse::new);
  }

  /** Replaying a response as deltas and assembling them gives back an equal response. */
  @Property(tries = 200)
  void replayThenAssembleIsIdentity(@ForAll("responses") ModelResponse response) throws ModelException {
    ModelResponseAssembler a = new ModelResponseAssembler();
    List<ModelDelta> forwarded = new ArrayList<>();
    for (ModelDelta d : ModelDelta.replay(response)) {
      forwarded.addAll(a.accept(d));
    }
    assertThat(a.response()).isEqualTo(response);
    assertThat(forwarded).containsExactlyElementsOf(ModelDelta.replay(response));
  }

  /**
   * However a source splits argument texts into fragments and interleaves calls and text (each call's own deltas
   * in order, and without per-call completions), the assembled response has the calls in announcement order with
   * their full argument text, and the listener sees each call completed exactly once, before the response's
   * completion, which comes last.
   */
  @Property(tries = 200)
  void interleavedFragmentsAssembleInAnnouncementOrder(@ForAll("responses") ModelResponse response,
      @ForAll long seed) throws ModelException {
    Random rnd = new Random(seed);
    Map<String, List<ModelDelta>> perCall = new LinkedHashMap<>();
    for (ToolCallRequest c : response.toolCalls()) {
      List<ModelDelta> ds = new ArrayList<>();
      ds.add(new ModelDelta.ToolCallStarted(c.id(), c.name()));
      String args = c.rawArguments();
      int i = 0;
      while (i < args.length()) {
        int n = 1 + rnd.nextInt(4);
        ds.add(new ModelDelta.ToolCallArguments(c.id(), args.substring(i, Math.min(args.length(), i + n))));
        i += n;
      }
      perCall.put(c.id(), ds);
    }
    // interleave: announcements keep their relative order; fragments of a call follow its announcement
    List<ModelDelta> stream = new ArrayList<>();
    List<List<ModelDelta>> queues = new ArrayList<>(perCall.values());
    int nextToStart = 0;
    List<List<ModelDelta>> started = new ArrayList<>();
    String text = response.text();
    int textPos = 0;
    while (nextToStart < queues.size() || started.stream().anyMatch(q -> !q.isEmpty())
        || textPos < text.length()) {
      int choice = rnd.nextInt(3);
      if (choice == 0 && nextToStart < queues.size()) {
        List<ModelDelta> q = new ArrayList<>(queues.get(nextToStart++));
        stream.add(q.remove(0));
        started.add(q);
      } else if (choice == 1 && textPos < text.length()) {
        int n = 1 + rnd.nextInt(3);
        stream.add(new ModelDelta.Text(text.substring(textPos, Math.min(text.length(), textPos + n))));
        textPos += n;
      } else {
        List<List<ModelDelta>> open = started.stream().filter(q -> !q.isEmpty()).toList();
        if (!open.isEmpty()) {
          stream.add(open.get(rnd.nextInt(open.size())).remove(0));
        }
      }
    }
    stream.add(new ModelDelta.ResponseCompleted(response.stopReason()));

    ModelResponseAssembler a = new ModelResponseAssembler();
    List<ModelDelta> forwarded = new ArrayList<>();
    for (ModelDelta d : stream) {
      forwarded.addAll(a.accept(d));
    }
    assertThat(a.response()).isEqualTo(response);
    assertThat(forwarded.get(forwarded.size() - 1)).isInstanceOf(ModelDelta.ResponseCompleted.class);
    assertThat(forwarded.stream().filter(d -> d instanceof ModelDelta.ToolCallCompleted)
        .map(d -> ((ModelDelta.ToolCallCompleted) d).callId()).toList())
        .containsExactlyElementsOf(perCall.keySet());
  }
}
