package dev.toolcall.agui;

import dev.toolcall.CallRecord;
import dev.toolcall.CallStore;
import dev.toolcall.SharedCallStore;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.AgentSnapshot;
import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.conversation.Message;
import dev.toolcall.event.Subscription;
import dev.toolcall.runtime.ToolCallRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What other instances store, brought to a {@link CallBoard} for the sessions a page watches here: the page of a
 * session whose turn runs, suspends or goes on on another instance sees its calls and its conversation change without
 * reconnecting.
 *
 * <p>How: on a runtime with a shared store ({@link ToolCallRuntime#isShared()}) it listens through the runtime's one
 * watch of the store ({@link ToolCallRuntime#watchStore}: no connection of its own). A change of a session no page
 * watches here is dropped on the store's thread at once (a map look-up); a change of a call this runtime holds is left
 * to its events; any other change is read on this feed's one daemon thread ({@code toolcall-approvals-feed}): the call
 * ({@link CallStore#read}), shown as {@link ToolCallRuntime#snapshotOf} makes it, and the conversation
 * ({@link AgentDirectory#stored}: its state, whether a step holds it, the model's text beside each request; only
 * when the server serves its sessions through a directory). Reads of
 * one call or one conversation are coalesced: a change told while one is queued adds nothing, one told while it is
 * read queues it again, so the last read is always after the last change told. The board keeps a version only over an
 * older one, so a read that lags a local event, or a change told twice, shows nothing twice.
 *
 * <p>When a page connects, {@link #connected} reads the stored conversation and the calls of its turn at once (on the
 * page's thread): what changed before the page watched. A read the store fails is logged at DEBUG (the runtime's link
 * reports the store's failures); the page keeps what it showed, and the next change (or reconnect) reads again.
 * Thread-safe.
 */
final class StoreFeed implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StoreFeed.class);

  private final ToolCallRuntime runtime;
  /** The directory the server serves sessions through, or null (then no conversation is read). */
  private final AgentDirectory directory;
  private final CallBoard board;
  private final CallStore store;
  /** The watch of the runtime's shared store, or null when it is not shared (then only {@link #connected} reads). */
  private final Subscription subscription;
  private final ExecutorService reader;
  /** The reads queued and not yet started: of calls (session, call id) and of conversations (session). */
  private final Set<Map.Entry<String, String>> queuedCalls = ConcurrentHashMap.newKeySet();
  private final Set<String> queuedConversations = ConcurrentHashMap.newKeySet();

  StoreFeed(ToolCallRuntime runtime, AgentDirectory directory, CallBoard board) {
    this.runtime = runtime;
    this.directory = directory;
    this.board = board;
    this.store = runtime.callStore().orElseThrow();
    this.reader = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "toolcall-approvals-feed");
      t.setDaemon(true);
      return t;
    });
    this.subscription = !runtime.isShared() ? null : runtime.watchStore(new SharedCallStore.Listener() {
      @Override
      public void stored(String sessionId, String callId, int version) {
        if (!board.watched(sessionId) || board.version(sessionId, callId) >= version
            || runtime.scheduler().call(sessionId, callId).isPresent()) {
          return; // not shown here, shown already, or held here (its events bring it)
        }
        queue(queuedCalls, Map.entry(sessionId, callId), () -> readCall(sessionId, callId));
      }

      @Override
      public void conversationChanged(String conversationId, long revision) {
        if (directory != null && board.watched(conversationId)) {
          queue(queuedConversations, conversationId, () -> readConversation(conversationId));
        }
      }
    });
  }

  private <K> void queue(Set<K> queued, K key, Runnable read) {
    if (!queued.add(key)) {
      return; // queued and not started: it reads what this change stored
    }
    try {
      reader.execute(() -> {
        queued.remove(key); // first: a change told from now on queues another read
        read.run();
      });
    } catch (RejectedExecutionException e) {
      queued.remove(key); // closed
    }
  }

  private void readCall(String sessionId, String callId) {
    if (!board.watched(sessionId)) {
      return;
    }
    Optional<CallRecord> c;
    try {
      c = store.read(sessionId, callId);
    } catch (RuntimeException e) {
      failed("call " + sessionId + "/" + callId, e);
      return;
    }
    c.ifPresent(this::show);
  }

  private void show(CallRecord c) {
    if (runtime.scheduler().call(c.sessionId(), c.callId()).isPresent()) {
      return; // held here (loaded meanwhile): its events show it
    }
    board.update(runtime.snapshotOf(c), false);
  }

  private void readConversation(String conversationId) {
    if (!board.watched(conversationId)) {
      return;
    }
    Optional<ConversationStore.Stored> s;
    try {
      s = directory.stored(conversationId);
    } catch (RuntimeException e) {
      failed("conversation " + conversationId, e);
      return;
    }
    s.ifPresent(st -> board.stored(conversationId, st.revision(),
        st.snapshot().map(AgentSnapshot::conversation).orElse(null),
        st.snapshot().map(AgentSnapshot::messages).orElse(List.of()), st.held()));
  }

  /**
   * A page connects to {@code session}: reads the stored conversation, and the calls of its last response as the
   * store holds them (a turn that suspended on another instance: its open requests), into the board, on the caller's
   * thread. A store that cannot be read leaves the board as it is.
   */
  void connected(String session) {
    if (directory == null) {
      return; // no conversation to read: the calls other instances change from now on come through the watch
    }
    Optional<ConversationStore.Stored> s;
    try {
      s = directory.stored(session);
    } catch (RuntimeException e) {
      failed("conversation " + session, e);
      return; // the page shows what this instance holds
    }
    if (s.isEmpty()) {
      return;
    }
    ConversationStore.Stored st = s.get();
    List<Message> messages = st.snapshot().map(AgentSnapshot::messages).orElse(List.of());
    board.stored(session, st.revision(), st.snapshot().map(AgentSnapshot::conversation).orElse(null), messages,
        st.held());
    if (messages.isEmpty() || !(messages.get(messages.size() - 1) instanceof AssistantMessage asked)
        || asked.toolCalls().isEmpty()) {
      return;
    }
    List<String> labels = new ArrayList<>();
    asked.toolCalls().forEach(c -> labels.add(c.id()));
    List<CallRecord> calls;
    try {
      calls = store.readByLabels(session, labels);
    } catch (RuntimeException e) {
      failed("the calls of session " + session, e);
      return;
    }
    calls.forEach(this::show);
  }

  /** A read the store failed: at DEBUG (the runtime's own link says that the store fails, at WARN). */
  private static void failed(String what, RuntimeException e) {
    log.debug("the approval page could not read {} from the store; pages show what they have", what, e);
  }

  /** Stops listening and reading; waits up to a second for a read under way. */
  @Override
  public void close() {
    if (subscription != null) {
      subscription.close();
    }
    reader.shutdownNow();
    try {
      reader.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
