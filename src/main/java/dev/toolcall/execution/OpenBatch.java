package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A batch whose calls arrive one at a time, as a model streams them: a call is created PENDING as soon as it is
 * announced (its id and tool name are known, so a UI shows it at once), its raw argument text grows as it streams,
 * and once the arguments are complete it takes the same path as a call of {@link ToolScheduler#schedule}: validated,
 * authorized, then run in its turn. {@link #seal()} ends the batch and returns its {@link Batch}. Made by
 * {@link ToolScheduler#openBatch(String)}.
 *
 * <h2>The rules of {@link ToolScheduler#schedule}, in announcement order</h2>
 * <ul>
 *   <li><b>Request order</b> is the order of {@link #announce}: {@link #calls()} and the sealed batch's results follow
 *       it.</li>
 *   <li><b>Ordering.</b> The scheduler's {@link ExecutionOrder} applies in announcement order. Calls are validated and
 *       authorized in that order too: a call whose arguments complete before those of an earlier call waits for
 *       them (only streams that interleave calls notice).</li>
 *   <li><b>Duplicate ids.</b> An id announced twice in one batch gives the second its own call, failed as
 *       {@link FailureKind#DUPLICATE_CALL}, published under an id of its own ({@link ToolScheduler#refuse}). An id already scheduled in the session returns that
 *       call while it has not ended; this batch neither fills in its arguments nor runs it again. An id whose call
 *       has ended gets its own call, failed as {@link FailureKind#DUPLICATE_CALL} the same way (the scheduler keeps
 *       the ids of ended calls, not the calls).</li>
 *   <li><b>Close.</b> After {@link ToolScheduler#close()} an announced call is cancelled at once.</li>
 * </ul>
 *
 * <h2>Arguments while they stream</h2>
 * A call starts with the empty text as its arguments. {@link #appendArguments} replaces them with the raw text
 * received so far ({@link dev.toolcall.Change.ArgumentsModified}, by {@value #STREAMING}) from the second fragment
 * on, whenever that text has at least doubled since it was last published: a UI sees the arguments fill in, and a
 * call's history stays linear in the size of its arguments. {@link #complete} installs the validated arguments (by
 * {@value #FINAL}), or the raw text when they are invalid, before anything else happens to the call.
 *
 * <h2>Ends</h2>
 * Every announced call ends, whatever the stream does: {@link #seal()} fails a call whose arguments never completed
 * ({@link FailureKind#MALFORMED_ARGUMENTS}, with a message for the model, through RUNNING like any call that fails
 * validation); arguments that are malformed when complete fail it the same way; {@link #cancelAll} cancels every call,
 * and a call announced after it is cancelled at once.
 *
 * <h2>Holding execution</h2>
 * A batch made by {@link ToolScheduler#openBatch(String, CompletionStage)} validates and authorizes its calls as they
 * complete (permission requests open at once) but starts no tool before the given stage completes. With
 * {@link #whenAuthorized()} a runtime can tell when no call waits for a decision any more, and release the batch
 * after its own bookkeeping (the conversation's state) has been published.
 *
 * <p>Thread-safe. {@link #announce}, {@link #appendArguments}, {@link #complete}, {@link #fail} and {@link #seal} are
 * the stream's methods: call them from one thread at a time (successive calls from different threads need a
 * happens-before edge, which any sequential stream provides). {@link #calls()}, {@link #cancelAll} and
 * {@link #whenAuthorized()} may be called from any thread at any time.
 */
public interface OpenBatch {

  /** The {@code by} of the arguments published while they stream. */
  String STREAMING = "model (streaming)";

  /** The {@code by} of the arguments installed when they are complete. */
  String FINAL = "model";

  /**
   * Creates the call the model announced: PENDING with empty arguments, its creation event published before this
   * returns. See the class comment for duplicate ids.
   *
   * @return the call (for a duplicate id, the failed duplicate or the call already scheduled in the session)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if an argument is blank
   * @throws IllegalStateException if the batch is sealed
   */
  ToolCall announce(String callId, String toolName);

  /**
   * Like {@link #announce(String, String)}, for a call nested in {@code parentCallId} (the calls of a sub-agent that
   * runs inside a tool call): its identity names the parent, so a UI shows it under that call.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if an argument is blank
   * @throws IllegalStateException if the batch is sealed
   */
  ToolCall announce(String callId, String toolName, String parentCallId);

  /**
   * Like {@link #announce(String, String)}, for the call {@code request} describes: its id, label (the provider's id,
   * when the runtime minted the call id), tool, parent and origin; its raw arguments are the first fragment.
   *
   * @throws NullPointerException if {@code request} is null
   * @throws IllegalStateException if the batch is sealed
   */
  ToolCall announce(CallRequest request);

  /**
   * Appends {@code fragment} to the raw argument text of {@code call}. Does nothing for a call this batch does not
   * run (a duplicate, a call of an earlier batch), one whose arguments are complete, or one that has ended.
   *
   * @throws IllegalArgumentException if {@code call} was not announced in this batch
   * @throws IllegalStateException if the batch is sealed
   */
  void appendArguments(ToolCall call, String fragment);

  /**
   * The arguments of {@code call} are complete: it is validated, authorized and then run in its turn, like a call
   * of {@link ToolScheduler#schedule}. Does nothing for a call this batch does not run, one already complete, or one
   * that has ended (which then only keeps its place in the order).
   *
   * @throws IllegalArgumentException if {@code call} was not announced in this batch
   * @throws IllegalStateException if the batch is sealed
   */
  void complete(ToolCall call);

  /**
   * Ends {@code call} FAILED with {@code kind} and {@code message} (for the model) without validating or running it,
   * through RUNNING like a call that fails validation: for the runtime's own checks, such as a per-turn limit. Its
   * arguments become the raw text received so far. Does nothing for a call that has ended or is not this batch's to
   * run.
   *
   * @throws IllegalArgumentException if {@code call} was not announced in this batch, or {@code message} is blank
   * @throws IllegalStateException if the batch is sealed
   */
  void fail(ToolCall call, FailureKind kind, String message);

  /**
   * Ends the batch: no call is announced any more; a call whose arguments never completed fails (see the class
   * comment); the returned batch holds every call in announcement order. Idempotent: a second call returns the same
   * batch.
   */
  Batch seal();

  /**
   * Completes once the batch is sealed and every call of it has been authorized: its permission check has finished
   * (no permission needed, or approved) or the call has ended. For a call that ended it waits for
   * {@link ToolCall#whenTerminal()}, so the terminal event has been handed to the bus; for an approval it waits for
   * the authorizer's stage, which the permission service completes right after the approval's compare-and-set (its
   * event is out by then, unless another thread was delivering an earlier change of the same call at that moment).
   * Never completes exceptionally.
   */
  CompletionStage<Void> whenAuthorized();

  /** The calls announced so far, in announcement order: a copy. */
  List<ToolCall> calls();

  /**
   * Cancels every call announced so far that has not ended, last first, and every call announced afterwards at
   * once. The batch can still be sealed.
   *
   * @return how many calls this cancelled
   */
  int cancelAll(String reason);
}
