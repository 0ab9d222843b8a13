package dev.toolcall.agui;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.presentation.Presenter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The latest snapshot of every call, per session, kept from the runtime's events (an inline listener: it only
 * stores and signals) and, on a shared store, from what other instances store ({@link StoreFeed}, for the sessions
 * watched here only), and the page streams watching each session. A watcher is told which calls changed; it renders
 * them on its own thread, so a slow client slows only itself. The conversation of each session (its latest
 * snapshot: is a turn running, did it end) is kept the same way and signalled as {@link #TURN}. Versions only move
 * forward: a snapshot is kept only over an older version of its call (a local event also over the same version read
 * from the store). Thread-safe.
 */
final class CallBoard implements AutoCloseable {
  /** Terminal calls kept per session for the page; older ones are dropped. */
  private static final int KEEP_TERMINAL = 200;
  /** What a watcher is told when the session's conversation changed (call ids are never empty). */
  static final String TURN = "";

  private final ToolCallRuntime runtime;
  /** The directory of the sessions when the server serves them through one, or null. */
  private final dev.toolcall.conversation.AgentDirectory directory;
  private final Presenter presenter;
  private final Clock clock;
  private final Map<String, Map<String, ToolCallSnapshot>> sessions = new ConcurrentHashMap<>();
  private final Map<String, List<Watcher>> watchers = new ConcurrentHashMap<>();
  // session -> request id -> call id, of every request this board saw open (to tell a late answer what won)
  private final Map<String, Map<String, String>> requests = new ConcurrentHashMap<>();
  private final Map<String, ConversationSnapshot> turns = new ConcurrentHashMap<>();
  /**
   * Of each watched session served through a directory: the conversation as the store last held it (its messages say
   * why a call asked; {@code held}: a step runs it now, on any instance). Dropped when its last watcher goes.
   */
  private final Map<String, StoredTurn> stored = new ConcurrentHashMap<>();
  private final List<Agent> transcripts;
  private final Subscription subscription;
  /**
   * What other instances store (on a shared store), and what a page reads on connect (through a directory on a
   * runtime with a call store); else null.
   */
  private final StoreFeed feed;

  /** A conversation as read from the store: its revision, its messages, whether a step holds it. */
  record StoredTurn(long revision, List<Message> messages, boolean held) {}

  /** {@code transcripts}: agents whose messages say why their calls were asked (the model's text beside a request). */
  CallBoard(ToolCallRuntime runtime, Presenter presenter, Clock clock, List<Agent> transcripts) {
    this(runtime, presenter, clock, transcripts, null);
  }

  /**
   * A board that also shows, for a session served through {@code directory}, the open requests of its suspended turn
   * as the store holds them (a turn suspended on another instance, whose calls no instance holds).
   */
  CallBoard(ToolCallRuntime runtime, Presenter presenter, Clock clock, List<Agent> transcripts,
      dev.toolcall.conversation.AgentDirectory directory) {
    this.directory = directory;
    this.runtime = runtime;
    this.presenter = presenter;
    this.clock = clock;
    this.transcripts = List.copyOf(transcripts);
    this.subscription = runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent e) {
          update(e.snapshot(), true);
        } else if (event instanceof ConversationEvent e) {
          turn(e.snapshot());
        }
      }
    });
    this.feed = runtime.isShared() || directory != null && runtime.callStore().isPresent()
        ? new StoreFeed(runtime, directory, this) : null;
    // This board is how a person reads the runtime's requests (the page lists them): reading the queue once says so,
    // so the runtime does not warn that nobody reads its requests while a browser has yet to connect.
    runtime.permissions().pending();
  }

  /**
   * Keeps {@code s} if it is newer than what the board has of its call ({@code local}: published by this runtime, kept
   * over the same version read from the store too) and tells the session's watchers; an older version changes nothing.
   */
  void update(ToolCallSnapshot s, boolean local) {
    String session = s.identity().sessionId();
    Map<String, ToolCallSnapshot> calls = sessions.computeIfAbsent(session, k -> new ConcurrentHashMap<>());
    boolean[] kept = {false};
    calls.merge(s.callId(), s, (a, b) -> {
      kept[0] = b.version() > a.version() || local && b.version() == a.version();
      return kept[0] ? b : a;
    });
    if (calls.get(s.callId()) == s) {
      kept[0] = true; // first of its call
    }
    if (!kept[0]) {
      return;
    }
    if (s.state() == ToolCallState.PERMISSION_PENDING) {
      PermissionRequest.of(s).ifPresent(r -> requests.computeIfAbsent(session, k -> new ConcurrentHashMap<>())
          .put(r.requestId(), s.callId()));
    }
    if (s.isTerminal() && calls.size() > KEEP_TERMINAL * 2) {
      trim(calls);
    }
    List<Watcher> ws = watchers.get(session);
    if (ws != null) {
      for (Watcher w : ws) {
        w.changed(s.callId());
      }
    }
  }

  /** The version of call {@code callId} of {@code session} the board has, or -1. */
  int version(String session, String callId) {
    ToolCallSnapshot s = sessions.getOrDefault(session, Map.of()).get(callId);
    return s == null ? -1 : s.version();
  }

  /** Whether a page stream watches {@code session} now. */
  boolean watched(String session) {
    List<Watcher> ws = watchers.get(session);
    return ws != null && !ws.isEmpty();
  }

  /**
   * The conversation of a watched session as the store holds it ({@code snapshot}, null while its first step runs),
   * read at {@code revision}: kept if no later revision was, and its snapshot joins the board as a local event's does.
   */
  void stored(String session, long revision, ConversationSnapshot snapshot, List<Message> messages, boolean held) {
    StoredTurn next = new StoredTurn(revision, List.copyOf(messages), held);
    if (stored.merge(session, next, (a, b) -> b.revision() >= a.revision() ? b : a) != next) {
      return; // a later revision was read already
    }
    if (snapshot != null) {
      turns.merge(session, snapshot, (a, b) -> b.version() > a.version() ? b : a);
    }
    signalTurn(session);
  }

  private void turn(ConversationSnapshot s) {
    turns.merge(s.conversationId(), s, (a, b) -> b.version() >= a.version() ? b : a);
    signalTurn(s.conversationId());
  }

  private void signalTurn(String session) {
    List<Watcher> ws = watchers.get(session);
    if (ws != null) {
      // A streamed call may ask before its response is in the agent's messages: the waiting calls are drawn again
      // at each step of the conversation, so the model's text joins them once it is there.
      List<String> waiting = new ArrayList<>();
      for (ToolCallSnapshot c : sessions.getOrDefault(session, Map.of()).values()) {
        if (c.state() == ToolCallState.PERMISSION_PENDING) {
          waiting.add(c.callId());
        }
      }
      for (Watcher w : ws) {
        w.changed(TURN);
        waiting.forEach(w::changed);
      }
    }
  }

  /**
   * The conversation of {@code session}, if one runs on this runtime or the store holds it: {@code state} (its wire
   * name), {@code turn}, {@code roundTrips}, {@code reason} (a code), {@code active} (a turn is under way, or a step
   * holds the stored conversation, on any instance) and, when it failed, {@code error}.
   */
  Optional<ObjectNode> turn(String session) {
    ConversationSnapshot s = turns.get(session);
    if (s == null) {
      return Optional.empty();
    }
    StoredTurn st = stored.get(session);
    ObjectNode n = Wire.JSON.createObjectNode();
    n.put("state", s.state().wireName());
    n.put("turn", s.turn());
    n.put("roundTrips", s.roundTrips());
    n.put("reason", s.reason().code());
    n.put("active", s.state() != ConversationState.IDLE && s.state() != ConversationState.FAILED
        || st != null && st.held());
    s.error().ifPresent(e -> n.put("error", e));
    return Optional.of(n);
  }

  private static void trim(Map<String, ToolCallSnapshot> calls) {
    List<ToolCallSnapshot> terminal = new ArrayList<>();
    for (ToolCallSnapshot c : calls.values()) {
      if (c.isTerminal()) {
        terminal.add(c);
      }
    }
    terminal.sort((a, b) -> a.timestamp().compareTo(b.timestamp()));
    for (int i = 0; i < terminal.size() - KEEP_TERMINAL; i++) {
      calls.remove(terminal.get(i).callId());
    }
  }

  /**
   * Every call of {@code session} the page should show, oldest first, as JSON views: those the board has, the open
   * requests of this runtime's queue in the session, and, through a directory, the calls of the stored conversation's
   * turn as the store holds them (read now, for a page that connects).
   */
  ArrayNode views(String session) {
    if (feed != null) {
      feed.connected(session);
    }
    ArrayNode out = Wire.JSON.createArrayNode();
    Map<String, ToolCallSnapshot> calls = sessions.getOrDefault(session, Map.of());
    List<ToolCallSnapshot> sorted = new ArrayList<>(calls.values());
    sorted.sort((a, b) -> a.identity().createdAt().compareTo(b.identity().createdAt()));
    Set<String> shown = new HashSet<>();
    for (ToolCallSnapshot s : sorted) {
      out.add(view(s));
      shown.add(s.callId());
    }
    for (PermissionRequest r : runtime.permissions().pending()) {
      if (r.sessionId().equals(session) && !shown.contains(r.callId())) {
        ObjectNode v = Wire.view(r, presenter.theme(), clock.instant());
        why(v, r.toolName(), session, r.callId(), r.callId());
        out.add(v);
        shown.add(r.callId());
      }
    }
    return out;
  }

  /** The view of one call of {@code session}, if known. */
  Optional<ObjectNode> view(String session, String callId) {
    ToolCallSnapshot s = sessions.getOrDefault(session, Map.of()).get(callId);
    return Optional.ofNullable(s).map(this::view);
  }

  private ObjectNode view(ToolCallSnapshot s) {
    // A request open here, as the queue holds it now; or, for a call this runtime does not hold, the request as the
    // store held it when read (a decision posted here reaches it through the store). Never asked of the permission
    // service then: that would load the call into this runtime, which showing it must not do.
    Optional<PermissionRequest> r = Optional.empty();
    if (s.state() == ToolCallState.PERMISSION_PENDING) {
      r = runtime.scheduler().call(s.identity().sessionId(), s.callId()).isPresent()
          ? PermissionRequest.of(s).flatMap(p -> runtime.permissions().request(p.requestId()))
          : PermissionRequest.of(s);
    }
    ObjectNode v = Wire.view(presenter.view(s), r);
    why(v, s.toolName(), s.identity().sessionId(), s.callId(), s.identity().label());
    return v;
  }

  /**
   * Adds what tells a person why the call is asked: {@code description}, the tool's description (when the registry
   * has the tool and it has one), and, while the call waits for an answer, {@code assistantText}, the text of the
   * model's message that asked for it (when an agent of {@link #transcripts} holds it and it is not blank).
   */
  private void why(ObjectNode v, String toolName, String session, String callId, String label) {
    runtime.registry().find(toolName).map(t -> t.definition().description()).filter(d -> !d.isBlank())
        .ifPresent(d -> v.put("description", d));
    if (!v.has("request")) {
      return;
    }
    for (Agent a : transcripts) {
      if (a.conversation().id().equals(session) && asked(v, a.messages(), callId, label)) {
        return;
      }
    }
    StoredTurn st = stored.get(session);
    if (st != null) {
      asked(v, st.messages(), callId, label);
    }
  }

  /** Puts the text of the message of {@code messages} that asked for the call, if any; whether one did. */
  private static boolean asked(ObjectNode v, List<Message> messages, String callId, String label) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i) instanceof AssistantMessage m) {
        for (ToolCallRequest c : m.toolCalls()) {
          if (c.id().equals(label) || c.id().equals(callId)) {
            if (!m.text().isBlank()) {
              v.put("assistantText", m.text().strip());
            }
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * What answered request {@code requestId} of {@code session}, if this board saw it open and it has been answered:
   * the state the answer took the call to (permission_approved, permission_denied, cancelled).
   */
  Optional<ToolCallState> answered(String session, String requestId) {
    String callId = requests.getOrDefault(session, Map.of()).get(requestId);
    ToolCallSnapshot s = callId == null ? null : sessions.getOrDefault(session, Map.of()).get(callId);
    if (s == null) {
      return Optional.empty();
    }
    for (dev.toolcall.StateTransition t : s.history()) {
      if (t.from() == ToolCallState.PERMISSION_PENDING) {
        return Optional.of(t.to());
      }
    }
    return Optional.empty();
  }

  /** Starts watching {@code session}; close the watcher when the stream ends. */
  Watcher watch(String session) {
    Watcher w = new Watcher(session);
    watchers.computeIfAbsent(session, k -> new CopyOnWriteArrayList<>()).add(w);
    return w;
  }

  @Override
  public void close() {
    subscription.close();
    if (feed != null) {
      feed.close();
    }
  }

  /** One page stream's view of a session: the ids of calls changed since it last looked. */
  final class Watcher implements AutoCloseable {
    private final String session;
    private final Set<String> dirty = ConcurrentHashMap.newKeySet();
    private final LinkedBlockingQueue<String> order = new LinkedBlockingQueue<>();

    private Watcher(String session) {
      this.session = session;
    }

    void changed(String callId) {
      if (dirty.add(callId)) {
        order.offer(callId);
      }
    }

    /** The next changed call id, waiting at most {@code millis}; null when none changed. */
    String next(long millis) throws InterruptedException {
      String id = order.poll(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
      if (id != null) {
        dirty.remove(id);
      }
      return id;
    }

    String session() {
      return session;
    }

    @Override
    public void close() {
      List<Watcher> ws = watchers.get(session);
      if (ws != null) {
        ws.remove(this);
        if (ws.isEmpty()) {
          stored.remove(session); // read again when a page watches it next
        }
      }
    }
  }

  /** For the figures: how many page streams watch. */
  int watcherCount() {
    int n = 0;
    for (Iterator<List<Watcher>> it = watchers.values().iterator(); it.hasNext(); ) {
      n += it.next().size();
    }
    return n;
  }
}
