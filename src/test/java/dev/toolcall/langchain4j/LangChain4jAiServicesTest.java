package dev.toolcall.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.PermissionFakes.ManualTicker;
import dev.toolcall.testing.PermissionFakes.ManualTimer;
import dev.toolcall.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 27 item 9: an application keeps LangChain4j's {@code AiServices} and its tool calls run under the lifecycle
 * through {@link LangChain4jToolProvider}. Real {@code AiServices}, chat memories and {@code @Tool} beans; only the
 * chat model is scripted (it answers from the last message, so concurrent users each get their own script).
 */
class LangChain4jAiServicesTest {

  /** The application's AI service, as a LangChain4j user writes it. */
  interface Assistant {
    String chat(@MemoryId String user, @UserMessage String message);
  }

  /** A service without a memory id. */
  interface Plain {
    String chat(String message);
  }

  /** LangChain4j tools, unchanged. */
  public static final class Ops {
    final List<String> deployed = new CopyOnWriteArrayList<>();

    @dev.langchain4j.agent.tool.Tool("Deploys to an environment")
    public String deploy(@P("the environment") String env) {
      deployed.add(env);
      return "deployed " + env;
    }
  }

  /**
   * A model that asks for {@code deploy} under the id {@code call_0} (the same id for every user and every
   * response, as providers that number per response do) when the user writes {@code deploy X}, and answers with
   * what it read once the tool's result is back.
   */
  static final class ScriptedModel implements ChatModel {
    final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

    @Override
    public ChatResponse doChat(ChatRequest request) {
      requests.add(request);
      ChatMessage last = request.messages().get(request.messages().size() - 1);
      if (last instanceof ToolExecutionResultMessage r) {
        return ChatResponse.builder().aiMessage(AiMessage.from("model read: " + r.text()
            + (Boolean.TRUE.equals(r.isError()) ? " (error)" : ""))).finishReason(FinishReason.STOP).build();
      }
      String env = ((dev.langchain4j.data.message.UserMessage) last).singleText().replace("deploy ", "");
      return ChatResponse.builder().aiMessage(AiMessage.from(List.of(ToolExecutionRequest.builder().id("call_0")
          .name("deploy").arguments("{\"env\":\"" + env + "\"}").build()))).finishReason(FinishReason.TOOL_EXECUTION)
          .build();
    }
  }

  private final Ops ops = new Ops();
  private final ManualTicker ticker = new ManualTicker();
  private final ManualTimer timer = new ManualTimer(ticker);
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().ticker(ticker).timer(timer)
      .tools(LangChain4jTools.tools(ops, (name, tool) -> tool.permissionTimeout(Duration.ofSeconds(30))))
      .build();
  private final ScriptedModel model = new ScriptedModel();
  private final ExecutorService person = Executors.newSingleThreadExecutor();
  private final List<PermissionRequest> asked = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    runtime.close();
    person.shutdownNow();
  }

  private Assistant assistant() {
    return AiServices.builder(Assistant.class).chatModel(model)
        .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
        .toolProvider(LangChain4jToolProvider.create(runtime))
        .build();
  }

  /** A person who answers each request with {@code decide}. */
  private void personDecides(java.util.function.Function<PermissionRequest, Decision> decide) {
    runtime.permissions().onRequest(req -> {
      asked.add(req);
      runtime.permissions().decide(req.requestId(), decide.apply(req));
    }, person);
  }

  @Test
  void anApprovedCallRunsAndTheModelReadsItsResult() {
    List<dev.toolcall.ToolCallIdentity> created = new CopyOnWriteArrayList<>();
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ToolCallEvent.CallCreated c) {
        created.add(c.snapshot().identity());
      }
    }));
    personDecides(Decision::approveOnce);
    assertThat(assistant().chat("alice", "deploy staging")).isEqualTo("model read: deployed staging");
    assertThat(ops.deployed).containsExactly("staging");
    assertThat(asked).singleElement().satisfies(r -> {
      assertThat(r.sessionId()).isEqualTo("alice"); // the memory id is the session
      assertThat(r.toolName()).isEqualTo("deploy");
      assertThat(r.callId()).startsWith("call_").isNotEqualTo("call_0"); // the library's own id
    });
    assertThat(created).singleElement().satisfies(id -> { // the provider's id is the call's label
      assertThat(id.label()).isEqualTo("call_0");
      assertThat(id.sessionId()).isEqualTo("alice");
    });
    ToolExecutionResultMessage sent = (ToolExecutionResultMessage) last(model.requests.get(1).messages());
    assertThat(sent.id()).isEqualTo("call_0"); // LangChain4j answers under the provider's id
    assertThat(sent.isError()).isFalse();
  }

  @Test
  void aDeniedCallNeverRunsAndTheModelReadsTheReason() {
    personDecides(req -> Decision.deny(req, "not on Fridays"));
    String answer = assistant().chat("alice", "deploy production");
    assertThat(ops.deployed).isEmpty();
    assertThat(answer).startsWith("model read: ").contains("not on Fridays").endsWith("(error)");
    assertThat(((ToolExecutionResultMessage) last(model.requests.get(1).messages())).isError()).isTrue();
  }

  @Test
  void aRequestNobodyAnswersIsDeniedAtItsTimeout() throws Exception {
    List<ToolCallState> ends = new CopyOnWriteArrayList<>();
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ToolCallEvent.StateChanged s && s.to().isTerminal()) {
        ends.add(s.to());
      }
    }));
    var request = runtime.permissions().nextRequest().toCompletableFuture();
    CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> assistant().chat("alice", "deploy prod"));
    request.get(10, TimeUnit.SECONDS);
    timer.advance(Duration.ofSeconds(30));
    assertThat(answer.get(10, TimeUnit.SECONDS)).startsWith("model read: ").endsWith("(error)");
    assertThat(ops.deployed).isEmpty();
    assertThat(ends).containsExactly(ToolCallState.PERMISSION_DENIED);
  }

  /**
   * Two users at once on real threads, same tool, same provider call id ({@code call_0}), each approving "for the
   * session": each gets the result of its own call, each is asked once (a grant never crosses sessions), and a
   * user's grant holds for that user's next invocation (the memory id is the session), never for an invocation
   * without a memory id (a fresh session each).
   */
  @Test
  void twoUsersAtOnceWithTheSameCallIdsShareNothing() throws Exception {
    personDecides(Decision::approveForSession);
    Assistant assistant = assistant();
    Map<String, String> answers = new ConcurrentHashMap<>();
    String[] users = {"alice", "bob"};
    for (int round = 0; round < 20; round++) {
      answers.clear();
      asked.clear();
      String[] mine = {users[0] + round, users[1] + round};
      Race.run(2, Duration.ofSeconds(30), i -> answers.put(mine[i], assistant.chat(mine[i], "deploy env-" + mine[i])));
      assertThat(answers).containsEntry(mine[0], "model read: deployed env-" + mine[0])
          .containsEntry(mine[1], "model read: deployed env-" + mine[1]);
      assertThat(asked).extracting(PermissionRequest::sessionId).containsExactlyInAnyOrder(mine[0], mine[1]);
    }
    asked.clear();
    assertThat(assistant.chat("alice0", "deploy again")).isEqualTo("model read: deployed again");
    assertThat(asked).as("alice0's session grant holds in her conversation").isEmpty();

    Plain plain = AiServices.builder(Plain.class).chatModel(model)
        .toolProvider(LangChain4jToolProvider.create(runtime)).build();
    assertThat(plain.chat("deploy one")).isEqualTo("model read: deployed one");
    assertThat(plain.chat("deploy two")).isEqualTo("model read: deployed two");
    assertThat(asked).as("each invocation without a memory id is a session of its own").hasSize(2)
        .extracting(PermissionRequest::sessionId).allSatisfy(s -> assertThat(s)
            .startsWith(LangChain4jToolProvider.FRESH_SESSION_PREFIX)).doesNotHaveDuplicates();
  }

  /** Tools that fail: one transiently, once; one always. */
  public static final class Failing {
    final java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();

    @dev.langchain4j.agent.tool.Tool("Deploys, after a transient failure")
    public String deploy(@P("the environment") String env) throws dev.toolcall.TransientToolException {
      if (attempts.incrementAndGet() == 1) {
        throw new dev.toolcall.TransientToolException("registry busy");
      }
      return "deployed " + env;
    }
  }

  /**
   * A transient failure is retried per the tool's policy inside the AI service's call, and a tool that keeps failing
   * reaches the model as an error result with the exception's message, never as a result; each call's states are
   * events in the user's session.
   */
  @Test
  void retriesAndFailuresRunUnderTheToolsPolicy() {
    for (int maxAttempts : new int[] {2, 1}) {
      Failing tools = new Failing();
      List<String> events = new CopyOnWriteArrayList<>();
      try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(LangChain4jTools.tools(tools, (name, tool) -> tool
          .requiresApproval(false).retryPolicy(dev.toolcall.tool.RetryPolicy.exponential(maxAttempts,
              Duration.ofMillis(1))))).build()) {
        rt.events().subscribe(EventListener.of(e -> {
          if (e instanceof ToolCallEvent.StateChanged c && c.snapshot().identity().sessionId().equals("carol")) {
            events.add(c.to().name());
          }
        }));
        String answer = AiServices.builder(Assistant.class).chatModel(model)
            .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
            .toolProvider(LangChain4jToolProvider.create(rt)).build().chat("carol", "deploy staging");
        if (maxAttempts == 2) {
          assertThat(answer).isEqualTo("model read: deployed staging");
          assertThat(tools.attempts).hasValue(2);
          assertThat(events).containsExactly("RUNNING", "COMPLETED");
        } else {
          assertThat(answer).isEqualTo("model read: Error (tool_error): registry busy (error)");
          assertThat(events).containsExactly("RUNNING", "FAILED");
        }
      }
    }
  }

  private static ChatMessage last(List<ChatMessage> messages) {
    return messages.get(messages.size() - 1);
  }
}
