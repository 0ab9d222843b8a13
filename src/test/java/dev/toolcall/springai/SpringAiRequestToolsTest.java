package dev.toolcall.springai;

import static dev.toolcall.springai.SpringAiAdapterTest.call;
import static dev.toolcall.springai.SpringAiAdapterTest.calls;
import static dev.toolcall.springai.SpringAiAdapterTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

/**
 * Providers' ids and per-request tools through real Spring AI types ({@code ChatClient}, {@code MethodToolCallback}s),
 * with the drop-in manager: a call's identity inside the library is its own, the provider's id only what each
 * response is answered under; and what runs is what the request offers.
 *
 * <p>Before: blank ids were numbered {@code spring-ai-call-<n>} per request and provider ids were used as they came,
 * so a second round trip (or the next request of the conversation) with a blank id or {@code call_0} was refused as
 * {@code duplicate_call}; the runtime's build-time tool ran instead of the request's tool object; a tool the runtime
 * lacked was answered "unknown tool"; a {@code ToolContext} parameter failed; empty arguments failed validation.
 */
class SpringAiRequestToolsTest {

  /** Tools whose instance says which object ran. */
  public static final class Ops {
    final String owner;
    final List<String> ran = new CopyOnWriteArrayList<>();

    Ops(String owner) {
      this.owner = owner;
    }

    @Tool(description = "Deploys")
    public String deploy(String env) {
      ran.add(env);
      return owner + " deployed " + env;
    }

    @Tool(description = "Who is asking")
    public String whoami(ToolContext context) {
      ran.add("whoami");
      return "user " + context.getContext().get("user") + " after " + ((List<?>) context.getContext()
          .get(ToolContext.TOOL_CALL_HISTORY)).size() + " messages";
    }

    @Tool(description = "Pings")
    public String ping() {
      ran.add("ping");
      return "pong";
    }
  }

  private final Ops buildTime = new Ops("build-time");
  private final ToolCallRuntime runtime = ToolCallRuntime.builder()
      .tools(SpringAiTools.tools(callbacks(buildTime), (name, b) -> b.requiresApproval(false))).build();
  private final SpringAiToolCallingManager manager = SpringAiToolCallingManager.create(runtime);
  private final ExecutorService person = Executors.newSingleThreadExecutor();
  private final List<PermissionRequest> asked = new CopyOnWriteArrayList<>();
  private final List<Event> events = new CopyOnWriteArrayList<>();

  SpringAiRequestToolsTest() {
    runtime.events().subscribe(EventListener.of(events::add));
    runtime.permissions().onRequest(r -> {
      asked.add(r);
      runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
    }, person);
  }

  @AfterEach
  void close() {
    runtime.close();
    person.shutdownNow();
  }

  static List<ToolCallback> callbacks(Object tools) {
    return List.of(MethodToolCallbackProvider.builder().toolObjects(tools).build().getToolCallbacks());
  }

  /** The responses of the tool message the model received in its {@code n}th request. */
  static List<ToolResponseMessage.ToolResponse> responses(SpringAiAdapterTest.ScriptedChatModel model, int n) {
    List<Message> m = model.prompts.get(n).getInstructions();
    return ((ToolResponseMessage) m.get(m.size() - 1)).getResponses();
  }

  private long failedAsDuplicate() {
    return events.stream().filter(e -> e instanceof ToolCallEvent.StateChanged s && s.to().isTerminal()
        && String.valueOf(s.snapshot().outcome()).contains("uplicate")).count();
  }

  @Test
  void blankIdsRunInEveryRoundTripOfOneConversationAndAreAnsweredBlank() {
    SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> calls(call("", "deploy", "{\"env\":\"a\"}")))
        .then(p -> calls(call("", "deploy", "{\"env\":\"b\"}"), call("", "deploy", "{\"env\":\"c\"}")))
        .then(p -> text("done"))
        .then(p -> calls(call("", "deploy", "{\"env\":\"d\"}")))
        .then(p -> text("done again"));
    ChatClient chat = ChatClient.create(model);
    Map<String, Object> conversation = Map.of(SpringAiToolCallingManager.CONVERSATION_ID, "chat-1");
    assertThat(chat.prompt().user("deploy").toolCallbacks(callbacks(buildTime)).toolContext(conversation).call()
        .content()).isEqualTo("done");
    assertThat(chat.prompt().user("again").toolCallbacks(callbacks(buildTime)).toolContext(conversation).call()
        .content()).isEqualTo("done again");

    assertThat(buildTime.ran).containsExactly("a", "b", "c", "d");
    assertThat(responses(model, 1)).extracting(ToolResponseMessage.ToolResponse::id).containsExactly("");
    assertThat(responses(model, 2)).extracting(ToolResponseMessage.ToolResponse::id, r -> r.responseData())
        .containsExactly(org.assertj.core.groups.Tuple.tuple("", "\"build-time deployed b\""),
            org.assertj.core.groups.Tuple.tuple("", "\"build-time deployed c\""));
    assertThat(failedAsDuplicate()).isZero();
    assertThat(RequestCalls.size()).as("nothing left bound").isZero();
  }

  @Test
  void idsNumberedPerResponseRunInEveryResponseAndAreAnsweredUnderThem() {
    SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> calls(call("call_0", "deploy", "{\"env\":\"a\"}")))
        .then(p -> calls(call("call_0", "deploy", "{\"env\":\"b\"}"), call("call_1", "ping", "{}")))
        .then(p -> calls(call("call_0", "deploy", "{\"env\":\"c\"}"), call("call_0", "deploy", "{\"env\":\"d\"}")))
        .then(p -> text("done"));
    assertThat(ChatClient.create(model).prompt().user("deploy").toolCallbacks(callbacks(buildTime))
        .toolContext(Map.of(SpringAiToolCallingManager.CONVERSATION_ID, "chat-1")).call().content())
        .isEqualTo("done");

    assertThat(buildTime.ran).containsExactly("a", "b", "ping", "c", "d"); // a true duplicate: each runs, once
    assertThat(responses(model, 2)).extracting(ToolResponseMessage.ToolResponse::id)
        .containsExactly("call_0", "call_1");
    assertThat(responses(model, 3)).extracting(ToolResponseMessage.ToolResponse::id, r -> r.responseData())
        .containsExactly(org.assertj.core.groups.Tuple.tuple("call_0", "\"build-time deployed c\""),
            org.assertj.core.groups.Tuple.tuple("call_0", "\"build-time deployed d\""));
    assertThat(failedAsDuplicate()).isZero();
    assertThat(events).filteredOn(e -> e instanceof ToolCallEvent.StateChanged s && s.to().isTerminal())
        .extracting(e -> ((ToolCallEvent) e).snapshot().identity())
        .allSatisfy(id -> assertThat(id.callId()).startsWith(SpringAiToolCallingManager.CALL_ID_PREFIX))
        .extracting(dev.toolcall.ToolCallIdentity::label)
        .containsExactly("call_0", "call_0", "call_1", "call_0", "call_0");
  }

  /** Two users at once, each a conversation of two requests, every id blank: each gets its own results. */
  @RepeatedTest(3)
  void twoUsersWithBlankIdsAtOnceKeepTheirResults() throws Exception {
    String[] users = {"A", "B"};
    String[][] got = new String[2][2];
    Race.run(2, Duration.ofSeconds(20), i -> {
      SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
          .then(p -> calls(call("", "deploy", "{\"env\":\"" + users[i] + "1\"}")))
          .then(SpringAiSessionTest.echoToolResponse())
          .then(p -> calls(call("", "deploy", "{\"env\":\"" + users[i] + "2\"}")))
          .then(SpringAiSessionTest.echoToolResponse());
      ChatClient chat = ChatClient.create(model);
      for (int n = 0; n < 2; n++) {
        got[i][n] = chat.prompt().user("deploy").toolCallbacks(callbacks(buildTime))
            .toolContext(Map.of(SpringAiToolCallingManager.CONVERSATION_ID, "chat-" + users[i])).call().content();
      }
    });
    assertThat(got[0]).containsExactly("\"build-time deployed A1\"", "\"build-time deployed A2\"");
    assertThat(got[1]).containsExactly("\"build-time deployed B1\"", "\"build-time deployed B2\"");
    assertThat(buildTime.ran).containsExactlyInAnyOrder("A1", "A2", "B1", "B2");
    assertThat(failedAsDuplicate()).isZero();
  }

  @Test
  void theToolObjectARequestOffersRunsNotTheBuildTimeOne() {
    Ops perUser = new Ops("per-request");
    SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> calls(call("c1", "deploy", "{\"env\":\"prod\"}")))
        .then(SpringAiSessionTest.echoToolResponse());
    assertThat(ChatClient.create(model).prompt().user("deploy").tools(perUser).call().content())
        .isEqualTo("\"per-request deployed prod\"");
    assertThat(perUser.ran).containsExactly("prod");
    assertThat(buildTime.ran).isEmpty();
    assertThat(asked).as("the runtime's settings for its tool hold: no approval").isEmpty();
  }

  @Test
  void aToolTheRuntimeLacksRunsUnderItsPermissions() {
    ToolCallRuntime empty = ToolCallRuntime.builder().build();
    List<PermissionRequest> emptyAsked = new CopyOnWriteArrayList<>();
    empty.permissions().onRequest(r -> {
      emptyAsked.add(r);
      empty.permissions().decide(r.requestId(), Decision.approveOnce(r));
    }, person);
    try {
      Ops perUser = new Ops("per-request");
      SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(
          SpringAiToolCallingManager.create(empty))
          .then(p -> calls(call("c1", "deploy", "{\"env\":\"prod\"}")))
          .then(SpringAiSessionTest.echoToolResponse());
      assertThat(ChatClient.create(model).prompt().user("deploy").tools(perUser).call().content())
          .isEqualTo("\"per-request deployed prod\"");
      assertThat(perUser.ran).containsExactly("prod");
      assertThat(emptyAsked).as("a Spring tool asks for approval unless customised").singleElement()
          .satisfies(r -> assertThat(r.toolName()).isEqualTo("deploy"));
    } finally {
      empty.close();
    }
  }

  @Test
  void aToolContextParameterReceivesWhatSpringPasses() {
    SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> calls(call("c1", "whoami", "{}")))
        .then(SpringAiSessionTest.echoToolResponse());
    assertThat(ChatClient.create(model).prompt().user("who?").tools(new Ops("x")).toolContext(Map.of("user", "ann"))
        .call().content()).isEqualTo("\"user ann after 2 messages\""); // the user's message and the assistant's
  }

  @Test
  void emptyOrNullArgumentsReachTheToolAsAnEmptyObject() {
    Ops perUser = new Ops("x");
    SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> calls(call("c1", "ping", ""), call("c2", "ping", null)))
        .then(p -> text("ok"));
    assertThat(ChatClient.create(model).prompt().user("ping").tools(perUser).call().content()).isEqualTo("ok");
    assertThat(perUser.ran).containsExactly("ping", "ping");
    assertThat(responses(model, 1)).extracting(ToolResponseMessage.ToolResponse::responseData)
        .containsExactly("\"pong\"", "\"pong\"");
  }

  @Test
  void aRequestsToolTakesTheSettingsTheCustomiserGivesItsName() {
    ToolCallRuntime empty = ToolCallRuntime.builder().build();
    List<PermissionRequest> emptyAsked = new CopyOnWriteArrayList<>();
    empty.permissions().onRequest(r -> {
      emptyAsked.add(r);
      empty.permissions().decide(r.requestId(), Decision.approveOnce(r));
    }, person);
    SpringAiToolCallingManager custom = SpringAiToolCallingManager.builder(empty)
        .customize((name, b) -> b.requiresApproval(name.equals("deploy")).readOnly(name.equals("ping"))).build();
    try (custom) {
      Ops perUser = new Ops("per-request");
      SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(custom)
          .then(p -> calls(call("c1", "ping", "{}"), call("c2", "deploy", "{\"env\":\"prod\"}")))
          .then(p -> text("ok"));
      assertThat(ChatClient.create(model).prompt().user("go").tools(perUser).call().content()).isEqualTo("ok");
      assertThat(perUser.ran).containsExactly("ping", "prod");
      assertThat(emptyAsked).extracting(PermissionRequest::toolName).containsExactly("deploy");
      assertThat(empty.registry().find("ping")).hasValueSatisfying(t -> assertThat(t.definition().readOnly())
          .isTrue());
    }
    assertThat(empty.scheduler().isClosed()).as("closing the manager closes its runtime").isTrue();
  }

  /** A request that does not offer a tool the runtime added for another request does not run that tool. */
  @Test
  void aToolAddedForOneRequestIsNotRunForAnotherThatDidNotOfferIt() {
    ToolCallRuntime empty = ToolCallRuntime.builder().build();
    SpringAiToolCallingManager custom = SpringAiToolCallingManager.builder(empty)
        .customize((name, b) -> b.requiresApproval(false)).build();
    try (custom) {
      Ops first = new Ops("first");
      SpringAiAdapterTest.ScriptedChatModel one = new SpringAiAdapterTest.ScriptedChatModel(custom)
          .then(p -> calls(call("c1", "ping", "{}"))).then(p -> text("ok"));
      ChatClient.create(one).prompt().user("go").tools(first).call().content();
      SpringAiAdapterTest.ScriptedChatModel two = new SpringAiAdapterTest.ScriptedChatModel(custom)
          .then(p -> calls(call("c1", "ping", "{}"))).then(SpringAiSessionTest.echoToolResponse());
      assertThat(ChatClient.create(two).prompt().user("go").call().content()).contains("not offered");
      assertThat(first.ran).containsExactly("ping");
    }
  }

  /** The runtime has {@code deploy}; a request that offers only {@code ping} never runs it, nor asks for it. */
  @Test
  void aRuntimeToolTheRequestDoesNotOfferIsNotRun() {
    ToolCallRuntime asking = ToolCallRuntime.builder().tools(SpringAiTools.tools(callbacks(buildTime),
        (name, b) -> b.requiresApproval(true))).build();
    List<PermissionRequest> askingAsked = new CopyOnWriteArrayList<>();
    asking.permissions().onRequest(r -> {
      askingAsked.add(r);
      asking.permissions().decide(r.requestId(), Decision.approveOnce(r));
    }, person);
    try (SpringAiToolCallingManager m = SpringAiToolCallingManager.create(asking)) {
      Ops perUser = new Ops("per-request");
      List<ToolCallback> pingOnly = callbacks(perUser).stream().filter(c -> c.getToolDefinition().name()
          .equals("ping")).toList();
      SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(m)
          .then(p -> calls(call("c1", "deploy", "{\"env\":\"prod\"}"), call("c2", "ping", "{}")))
          .then(p -> text("ok"));
      assertThat(ChatClient.create(model).prompt().user("go").toolCallbacks(pingOnly).call().content())
          .isEqualTo("ok");
      assertThat(buildTime.ran).isEmpty();
      assertThat(perUser.ran).containsExactly("ping");
      assertThat(askingAsked).extracting(PermissionRequest::toolName).containsExactly("ping");
      assertThat(responses(model, 1)).extracting(ToolResponseMessage.ToolResponse::id).containsExactly("c1", "c2");
      assertThat(responses(model, 1).get(0).responseData()).contains("not offered").contains("ping");
      assertThat(responses(model, 1).get(1).responseData()).isEqualTo("\"pong\"");
    }
  }
}
