package dev.toolcall.conversation;

import dev.toolcall.Ticker;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The turn loop: drives one {@link Conversation} from a user message through model requests and tool calls to the
 * answer, on top of a {@link ToolCallRuntime}'s scheduler, and keeps the conversation's messages.
 *
 * <h2>One turn</h2>
 * {@link #send} starts a turn ({@code idle}/{@code failed -> processing_user_message}), appends the
 * {@link UserMessage} and asks the model ({@code awaiting_llm_response}) through {@link ModelClient#stream} with every
 * message so far and the registry's tool definitions (a client that implements only {@link ModelClient#complete}
 * replays its complete response as deltas). The response's tool calls are taken as the stream announces them, into
 * one {@link dev.toolcall.execution.OpenBatch} with the conversation id as session id:
 * <ul>
 *   <li>{@link ModelDelta.ToolCallStarted}: the call is created PENDING; its event is on the bus at once.</li>
 *   <li>{@link ModelDelta.ToolCallArguments}: its arguments fill in (see {@link dev.toolcall.execution.OpenBatch}).</li>
 *   <li>{@link ModelDelta.ToolCallCompleted}: {@link TurnGuards#checkToolCall} decides. An allowed call is validated
 *       and authorized now (a permission request opens while the model still streams); its tool waits for the tool
 *       phase. A call over a limit fails ({@link dev.toolcall.FailureKind#LIMIT_EXCEEDED}) with the guard's message
 *       and runs nothing. A loop stops the turn once the response is complete: no call of that response runs.</li>
 * </ul>
 * A call whose arguments end malformed or cut off (the model ran out of tokens) fails as a call with malformed
 * arguments, with a message for the model. A stream that fails cancels the calls it announced, and the request is
 * retried or the turn fails as for any model error. The complete response is appended as an {@link AssistantMessage}
 * ({@code processing_llm_response}). Without tool calls it is the answer ({@code -> idle}). Otherwise the tool phase
 * begins: {@code executing_tools} at once when no call waits for a decision, else {@code awaiting_tool_approval}
 * until none does ({@link dev.toolcall.execution.OpenBatch#whenAuthorized()}); only then may the calls' tools start, in the scheduler's
 * order. When every call has ended ({@code processing_tool_results}) one {@link ToolResultMessage} per call of the
 * response is appended, in request order (content {@link dev.toolcall.execution.CallResult#messageForModel()}, error flag
 * {@link dev.toolcall.execution.CallResult#isError()}; for a refused call the guard's message), under the id the provider sent (a call's
 * own id may be one the library minted: {@link dev.toolcall.ToolCallIdentity#label()}). A return-direct tool that completed ends the turn with its result; otherwise, if
 * {@link TurnGuards#checkRoundTrip} allows, the model is asked again ({@code generating_response ->
 * awaiting_llm_response}). When every call of a response was refused, the response goes through
 * {@code handling_tool_error} instead of the tool states.
 *
 * <h2>Events of one conversation</h2>
 * The conversation's events and those of its tool calls go to the runtime's bus. Per source (the conversation, each
 * call) every subscriber sees them in version order; across sources, while the conversation is changed only through
 * this agent, every subscriber (inline or with an executor, whenever it subscribed) sees them in an order consistent
 * with the turn:
 * <ol>
 *   <li>a response's calls are created (their first event) after the conversation's {@code awaiting_llm_response}
 *       that asked for that response, and before its {@code processing_llm_response};</li>
 *   <li>no tool of a response starts (its call's RUNNING with reason {@code started} or
 *       {@code no_permission_needed}) before the conversation's {@code executing_tools} for that response. A call
 *       that fails validation or is refused by a guard passes RUNNING (reason {@code validating}) earlier, while the
 *       response is streamed. (A user command's call, {@link #runCommand}, runs within
 *       {@code processing_user_message}: it has no tool phase.);</li>
 *   <li>{@code awaiting_tool_approval -> executing_tools} comes after the event of every decision it waited for
 *       (approved, denied, timed out, cancelled);</li>
 *   <li>every call's terminal event comes before the {@code processing_tool_results} (or {@code handling_tool_error})
 *       of its response;</li>
 *   <li>when a turn stops early (an abort, a guard, a failure), the conversation's change comes first and the
 *       cancellations of the turn's calls that had not ended follow it.</li>
 * </ol>
 * The mechanism costs nothing on the calls' hot path: the agent publishes its own change before it lets the calls go
 * on (the batch's tools are held until {@code executing_tools} is out), and moves on only on stages that complete
 * after the calls' events were handed to the bus ({@link dev.toolcall.ToolCall#whenTerminal()}, and the permission decision's
 * stage behind {@link dev.toolcall.execution.OpenBatch#whenAuthorized()}). The one gap, in (3): the permission service completes a
 * decision's stage right after its compare-and-set, and the event of that change is handed to the bus by the thread
 * that happens to be delivering the call's events; when another thread is delivering an earlier change of the same
 * call at that moment (an edit of the arguments made a moment before the approval, on another thread), the approval's
 * event may follow {@code executing_tools}.
 *
 * <h2>Failures are results</h2>
 * Nothing a model or a tool produced completes the returned stage exceptionally: a transient model error is retried
 * after {@link TurnGuards#modelRetryDelay} ({@code transient_failure}, then {@code failed} when the retries are used
 * up); a fatal one fails the turn; one that says the turn must not continue on its own stops it
 * ({@link TurnResult.Ending#MODEL_SWITCHED}). Transient tool errors are retried by the scheduler within
 * {@code executing_tools}. Every way a turn ends is a {@link TurnResult}.
 *
 * <h2>Turns that suspend</h2>
 * With {@link Builder#suspendOnApproval} a turn that has to wait for a person ends at once,
 * {@link TurnResult.Ending#INTERRUPTED}, listing its open requests; the conversation stays
 * {@code awaiting_tool_approval} and nothing waits for the person. {@link #resumeWith} applies decisions (from a
 * remote client, on any instance) and goes on with the turn; see {@code docs/remote.md}.
 *
 * <h2>Threads and races</h2>
 * Thread-safe. The turn runs on the threads that complete its stages: the caller of {@link #send} until the model
 * client's stage is pending, then the client's and the tools' threads, and a delayed executor for retry backoffs.
 * Only one turn runs at a time: {@link #send} and {@link #runCommand} while a turn is responding return a stage failed
 * with {@link IllegalStateException}, changing nothing. {@link #abort} may race with any step: the agent's own changes
 * of the conversation are made under one private lock, so a step either happens before the abort or not at all, and
 * nothing of an ended turn touches the conversation or the messages afterwards. If something outside the agent moves
 * the conversation (say {@code conversation().abort()}), the turn notices at its next step and ends as
 * {@link TurnResult.Ending#ABORTED}.
 */
public final class Agent {

  static final Logger log = LoggerFactory.getLogger(Agent.class);

  final ModelClient model;
  final ToolCallRuntime runtime;
  final TurnLimits limits;
  final Conversation conversation;
  final DoubleSupplier random;
  final String parentCallId; // null: the agent's calls are top-level calls
  final Consumer<? super ModelDelta> deltaListener;
  final ToolFailurePolicy toolFailures;
  final String instructions;
  final ModelOptions options;
  /** Every call id answered in this conversation so far; guarded by lock. A later call reusing one is refused. */
  final Set<String> answeredIds = new HashSet<>();
  /** Whether a turn that waits for a person ends interrupted ({@link Builder#suspendOnApproval}). */
  final boolean suspend;
  /** The decisions a remote client may give ({@link Builder#allowedDecisions}). */
  final java.util.Set<dev.toolcall.permission.DecisionKind> allowedDecisions;
  final Suspensions suspensions = new Suspensions(this);
  final AgentResume resumes = new AgentResume(this);
  /** Results known when the snapshot this agent resumes from was taken (see {@link Builder#resume}). */
  final List<ToolResultMessage> resumeAnswers;

  final Object lock = new Object();
  final List<Message> messages = new ArrayList<>(); // guarded by lock
  /** Which turn is under way, and how a turn ends. */
  final TurnEnds ends;
  /** The steps of the turns. */
  final TurnSteps steps;

  private Agent(Builder b) {
    this.model = b.model;
    this.runtime = b.runtime;
    this.limits = b.limits;
    this.random = b.random;
    this.parentCallId = b.parentCallId;
    this.deltaListener = b.deltaListener;
    this.toolFailures = b.toolFailures;
    this.instructions = b.instructions;
    this.options = b.options;
    this.suspend = b.suspend;
    this.allowedDecisions = b.allowedDecisions;
    this.messages.addAll(b.history);
    for (Message m : b.history) {
      if (m instanceof ToolResultMessage r) {
        answeredIds.add(r.callId());
      }
    }
    if (b.resumeFrom != null) {
      this.conversation = AgentResume.restore(b.resumeFrom.conversation(), runtime.events(), b.clock, b.ticker);
      this.resumeAnswers = b.resumeFrom.answered();
    } else {
      this.conversation = Conversation.builder(b.conversationId).clock(b.clock).ticker(b.ticker)
          .eventBus(runtime.events()).build();
      this.resumeAnswers = List.of();
    }
    this.ends = new TurnEnds(this);
    this.steps = new TurnSteps(this, ends);
  }

  /**
   * Starts an agent.
   *
   * @param model the runtime's model client
   * @param runtime the runtime whose registry offers the tools, whose scheduler runs them and whose bus carries the
   *     conversation's events
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(ModelClient model, ToolCallRuntime runtime) {
    return new Builder(model, runtime);
  }

  /**
   * Sends a user message: starts a turn and runs it to its end.
   *
   * @return a stage completing with how the turn ended; it fails (with {@link IllegalStateException}, nothing
   *     changed) only when a turn is already responding
   * @throws NullPointerException if {@code userText} is null
   */
  public CompletionStage<TurnResult> send(String userText) {
    Objects.requireNonNull(userText, "userText");
    return steps.send(userText);
  }

  /**
   * Runs a tool call the user asked for (a slash or at command) as a turn of its own, through the same scheduler,
   * with {@link CommandFollowUp#RESULT_ONLY}: {@code processing_user_message} while it runs, then {@code idle}; the
   * model is not asked, and the result is not added to the messages.
   *
   * @return a stage completing with {@link TurnResult.Ending#COMMAND} (or {@code ABORTED}) and the call's result; it
   *     fails (with {@link IllegalStateException}, nothing changed) only when a turn is already responding
   * @throws NullPointerException if {@code command} is null
   */
  public CompletionStage<TurnResult> runCommand(CallRequest command) {
    return runCommand(command, CommandFollowUp.RESULT_ONLY);
  }

  /**
   * Runs a tool call the user asked for (a slash or at command) as a turn of its own, through the same scheduler
   * (validation, permission, execution, events); the call's identity says {@link dev.toolcall.ToolCallOrigin#USER_COMMAND}.
   * {@code followUp} says what happens with its result: kept out of the messages, recorded for the model's next
   * turn, or sent to the model at once (see {@link CommandFollowUp}).
   *
   * @return a stage completing with how the turn ended: {@link TurnResult.Ending#COMMAND} (or {@code ABORTED})
   *     without the model; with {@link CommandFollowUp#ASK_MODEL} as any turn ends; it fails (with
   *     {@link IllegalStateException}, nothing changed) only when a turn is already responding
   * @throws NullPointerException if an argument is null
   */
  public CompletionStage<TurnResult> runCommand(CallRequest command, CommandFollowUp followUp) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(followUp, "followUp");
    CallRequest req = command.asCommand();
    if (parentCallId != null && req.parentCallId() == null) {
      req = req.nestedIn(parentCallId);
    }
    ToolCallRequest asked = new ToolCallRequest(command.callId(), command.toolName(), command.rawArguments());
    return steps.command(req, asked, followUp);
  }

  /**
   * Aborts the turn under way, if any: the conversation goes back to {@code idle}
   * ({@link dev.toolcall.ConversationReasons#ABORTED}), every tool call of the turn that has not ended is cancelled (last first),
   * each call of the latest response gets its result message (a cancellation when it had not ended), and the turn's
   * stage completes with {@link TurnResult.Ending#ABORTED} before this returns. A model request in flight is
   * cancelled through its stage (see {@link ModelClient}'s cancellation), so a client that honours it stops spending
   * tokens; a response that arrives anyway is ignored. Does nothing when no turn is under way.
   */
  public void abort() {
    ends.abort();
  }

  /** Whether a turn is under way (the conversation is busy); a new message is refused meanwhile. */
  public boolean isResponding() {
    return conversation.state().isBusy();
  }

  /**
   * The conversation's messages so far, oldest first: an immutable copy. It is the history to export: an agent built
   * with {@link Builder#history} of it (and the same instructions and options) asks the model what this one would.
   * Taken while a turn responds, it may end with an assistant message whose tool calls have no results yet.
   */
  public List<Message> messages() {
    synchronized (lock) {
      return List.copyOf(messages);
    }
  }

  /**
   * What this agent must not lose across a restart: the conversation's state, the messages, and the results of the
   * turn's open calls that have ended (each read once). Take it before the runtime's snapshot; see
   * {@link AgentSnapshot}.
   */
  public AgentSnapshot snapshot() {
    return resumes.snapshot();
  }

  /**
   * Goes on with the turn this agent was built to resume ({@link Builder#resume}) after a restart, given the batches
   * the runtime restored ({@link dev.toolcall.runtime.ToolCallRuntime#restore}). The calls of the last model response that
   * have no result yet get one each, in order: the result known in the snapshot, else the restored call's outcome
   * once it ends (a person may still have to decide), else "outcome unknown" for a call found in neither. Then the
   * turn goes on from where the conversation was: the results go to the model, and the turn ends as any turn does.
   * A turn that was waiting for the model asks it again.
   *
   * @return how the turn ended; a stage failed with {@link IllegalStateException} when there is no turn to resume
   *     (the conversation is not busy) or a turn is running
   */
  public CompletionStage<TurnResult> resume(List<Batch> owed) {
    return resumes.resume(owed);
  }

  /**
   * Goes on with the turn that ended {@link TurnResult.Ending#INTERRUPTED} ({@link Builder#suspendOnApproval}),
   * given decisions from a person, typically posted by a remote client. Call it from any thread, in this process, in
   * a restarted one (after {@link #resume(List)} ended the restored turn interrupted) or on another instance sharing
   * the store.
   *
   * <p>Each decision is applied to its request, in order, and reported in {@link TurnResult#decisions()}, one
   * {@link DecisionReport} per decision: only an accepted one changes anything. A decision is refused, changing
   * nothing, when its request is not an open request of this conversation (another conversation's request is answered
   * exactly as an unknown id), was already resolved (a replay; another answer, the deadline or a cancel won), names an
   * arguments version that is not the current one, carries edited arguments that fail the tool's schema, is of a kind
   * not {@link Builder#allowedDecisions allowed}, or repeats a request of the same call.
   *
   * <p>Then: when no turn is interrupted the stage completes at once with {@link TurnResult.Ending#NOT_INTERRUPTED}
   * (the conversation untouched); when a request of the interrupted turn is still open (a partial set of decisions),
   * at once with {@link TurnResult.Ending#INTERRUPTED} listing the open ones; otherwise the turn goes on (approved
   * tools run once, the model gets exactly one result per call) and the stage completes when it ends, which may be
   * {@code INTERRUPTED} again. Two calls racing to resume the same turn are serialized: one goes on with it, the
   * other finds it taken.
   *
   * @param decisions the decisions, each naming its request id and arguments version; may be empty (to go on after
   *     the requests were resolved otherwise, for example by their deadlines)
   * @return how the turn ended, with a report per decision; never fails for anything in the decisions
   * @throws NullPointerException if {@code decisions} or an element is null (naming the index)
   */
  public CompletionStage<TurnResult> resumeWith(List<? extends dev.toolcall.permission.Decision> decisions) {
    return suspensions.resumeWith(decisions);
  }

  /**
   * The open requests of the turn that ended {@link TurnResult.Ending#INTERRUPTED}, as they are now (arguments
   * edited since show their new version; resolved ones are gone); empty when no turn is interrupted. For a client
   * that reconnects.
   */
  public List<Interrupt> interrupts() {
    return suspensions.interrupts();
  }

  /**
   * Whether a turn that has to wait for a person ends {@link TurnResult.Ending#INTERRUPTED} at once
   * ({@link Builder#suspendOnApproval}) instead of waiting in this process.
   */
  public boolean suspendsOnApproval() {
    return suspend;
  }

  /** The system instructions sent with every model request; empty when there are none. */
  public String instructions() {
    return instructions;
  }

  /** The options sent with every model request. */
  public ModelOptions options() {
    return options;
  }

  /** The conversation this agent drives (its state, snapshot and events). */
  public Conversation conversation() {
    return conversation;
  }

  /** The limits every turn is held to. */
  public TurnLimits limits() {
    return limits;
  }

  @Override
  public String toString() {
    return "Agent[" + conversation + "]";
  }

  /** Builds an {@link Agent}; not thread-safe; each setter checks its value at once, naming the parameter. */
  public static final class Builder {
    private final ModelClient model;
    private final ToolCallRuntime runtime;
    private String conversationId = "conversation-" + java.util.UUID.randomUUID();
    private TurnLimits limits = TurnLimits.defaults();
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
    private Consumer<? super ModelDelta> deltaListener;
    private String parentCallId;
    private dev.toolcall.tool.ToolInvocation parentInvocation;
    private ToolFailurePolicy toolFailures = ToolFailurePolicy.REPORT_TO_MODEL;
    private String instructions = "";
    private ModelOptions options = ModelOptions.DEFAULTS;
    private List<Message> history = List.of();
    private AgentSnapshot resumeFrom;
    private boolean suspend;
    private java.util.Set<dev.toolcall.permission.DecisionKind> allowedDecisions =
        java.util.Set.copyOf(java.util.EnumSet.allOf(dev.toolcall.permission.DecisionKind.class));

    private Builder(ModelClient model, ToolCallRuntime runtime) {
      this.model = Objects.requireNonNull(model, "model");
      this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    /**
     * The conversation id, also the session id of its tool calls; non-blank. Default: a fresh id of its own
     * ({@code conversation-} and a random UUID), so agents built without one never share calls, results or session
     * grants. Set it to the id your application keeps the conversation under (a user's chat, a memory id).
     */
    public Builder conversationId(String conversationId) {
      this.conversationId = Checks.requireNonBlank(conversationId, "conversationId");
      return this;
    }

    /**
     * What a turn does when a tool fails in its tool (default {@link ToolFailurePolicy#REPORT_TO_MODEL}: the model
     * gets the error and the turn goes on; {@link ToolFailurePolicy#FAIL_TURN} ends the turn FAILED, as seed 03).
     */
    public Builder toolFailurePolicy(ToolFailurePolicy policy) {
      this.toolFailures = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The system message (instructions) sent with every model request (default: none). */
    public Builder instructions(String instructions) {
      this.instructions = Objects.requireNonNull(instructions, "instructions");
      return this;
    }

    /**
     * The options sent with every model request (default {@link ModelOptions#DEFAULTS}). A
     * {@link ToolChoice#tool named tool choice} must name a tool of the runtime's registry; that is checked when
     * the agent is built.
     */
    public Builder options(ModelOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * The messages the conversation starts with, oldest first: a history exported by {@link Agent#messages()} or
     * written by the runtime. It must be well-formed, as the agent itself would have made it: every tool call of an
     * assistant message is answered by exactly one {@link ToolResultMessage} (same id and tool name), in the calls'
     * order, right after it; no result answers anything else; no call id appears twice; the last message is no
     * assistant message with unanswered calls. The call ids of the history count as used: a model that repeats one
     * later is told so and the call does not run.
     *
     * @throws IllegalArgumentException naming the first message (by index) that breaks a rule
     */
    public Builder history(List<? extends Message> history) {
      this.history = History.check(Objects.requireNonNull(history, "history"));
      return this;
    }

    /**
     * Builds the agent to go on after a restart from {@code snapshot} (taken by {@link Agent#snapshot()} before the
     * process stopped): its conversation id, state and counters, and its messages (the last assistant message's calls
     * may be unanswered); {@link Agent#resume} then finishes the turn. Replaces {@link #conversationId} and
     * {@link #history}. The model client and the tools are the ones given to {@link Agent#builder} and to the
     * runtime: re-creating them is the application's part.
     */
    public Builder resume(AgentSnapshot snapshot) {
      this.resumeFrom = Objects.requireNonNull(snapshot, "snapshot");
      this.history = snapshot.messages();
      this.conversationId = snapshot.conversation().conversationId();
      return this;
    }

    /**
     * Whether a turn that has to wait for a person ends now, {@link TurnResult.Ending#INTERRUPTED}, instead of
     * keeping its stage pending until every request is decided (default false). The interrupted turn keeps no thread:
     * its requests stay open in the permission service with their deadlines, its tools are held, and
     * {@link Agent#resumeWith} goes on with it. After a restart, {@link Agent#resume(List)} of a turn waiting for
     * approval ends it interrupted at once, the same way.
     */
    public Builder suspendOnApproval(boolean suspend) {
      this.suspend = suspend;
      return this;
    }

    /**
     * The kinds of decision {@link Agent#resumeWith} accepts (default: all); others are refused with
     * {@link DecisionReport.Status#NOT_ALLOWED}. Listed in each {@link Interrupt#allowed()}.
     *
     * @throws IllegalArgumentException if {@code kinds} is empty
     */
    public Builder allowedDecisions(java.util.Set<dev.toolcall.permission.DecisionKind> kinds) {
      Objects.requireNonNull(kinds, "kinds");
      if (kinds.isEmpty()) {
        throw new IllegalArgumentException("kinds must not be empty: allow at least one kind of decision");
      }
      this.allowedDecisions = java.util.Set.copyOf(kinds);
      return this;
    }

    /** The guards of every turn (default {@link TurnLimits#defaults()}). */
    public Builder limits(TurnLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** The conversation's wall clock (default system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The conversation's monotonic ticker (default {@link Ticker#system()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** The source of jitter for model retry backoffs, uniform in [0, 1) (default {@link ThreadLocalRandom}). */
    public Builder random(DoubleSupplier random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * Passes every delta of the model's responses to {@code listener} as it arrives (one thread at a time; it must be
     * quick), after the agent has taken it (so the call a {@link ModelDelta.ToolCallStarted} announces exists). The
     * agent asks the model through {@link ModelClient#stream} with or without it. A listener that throws fails the
     * request (see {@link ModelClient#stream}).
     */
    public Builder onDelta(Consumer<? super ModelDelta> listener) {
      this.deltaListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Makes this agent a sub-agent of the tool call {@code invocation} runs: its calls are nested in that call (a UI
     * shows them under it; they are cancelled when it ends, see {@link dev.toolcall.execution.ToolScheduler}), and
     * when that call is cancelled, fails or times out, the agent's turn is aborted at once, so a sub-agent never asks
     * its model again after its parent ended. Nothing in the tool needs to wire that up.
     */
    public Builder parent(dev.toolcall.tool.ToolInvocation invocation) {
      Objects.requireNonNull(invocation, "invocation");
      parentCallId(invocation.callId());
      this.parentInvocation = invocation;
      return this;
    }

    /**
     * Nests every tool call of this agent in the tool call {@code parentCallId}: for a sub-agent that runs inside a
     * tool (its calls' identities name the parent, so a UI shows them under it, and they are cancelled when the
     * parent call ends). Prefer {@link #parent}, which also aborts the agent's turn when the parent call ends.
     *
     * @throws IllegalArgumentException if {@code parentCallId} is blank
     */
    public Builder parentCallId(String parentCallId) {
      Objects.requireNonNull(parentCallId, "parentCallId");
      if (parentCallId.isBlank()) {
        throw new IllegalArgumentException("parentCallId must not be blank: give the id of the call the agent runs in");
      }
      this.parentCallId = parentCallId;
      return this;
    }

    /**
     * The agent, its conversation IDLE.
     *
     * @throws IllegalArgumentException if {@link #options} name a tool the runtime's registry does not have
     */
    public Agent build() {
      if (options.toolChoice() instanceof ToolChoice.Named n && runtime.registry().find(n.toolName()).isEmpty()) {
        throw new IllegalArgumentException("options.toolChoice names the tool '" + n.toolName()
            + "', which the runtime's registry does not have");
      }
      if (options.toolChoice() instanceof ToolChoice.Required && runtime.registry().size() == 0) {
        throw new IllegalArgumentException("options.toolChoice is required, but the runtime's registry has no tools");
      }
      Agent agent = new Agent(this);
      if (parentInvocation != null) {
        parentInvocation.onCancel(agent::abort);
      }
      return agent;
    }
  }
}
