package dev.toolcall.agui;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
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
 * stores and signals), and the page streams watching each session. A watcher is told which calls changed; it renders
 * them on its own thread, so a slow client slows only itself. Thread-safe.
 */
final class CallBoard implements AutoCloseable {
  /** Terminal calls kept per session for the page; older ones are dropped. */
  private static final int KEEP_TERMINAL = 200;

  private final ToolCallRuntime runtime;
  private final Presenter presenter;
  private final Clock clock;
  private final Map<String, Map<String, ToolCallSnapshot>> sessions = new ConcurrentHashMap<>();
  private final Map<String, List<Watcher>> watchers = new ConcurrentHashMap<>();
  // session -> request id -> call id, of every request this board saw open (to tell a late answer what won)
  private final Map<String, Map<String, String>> requests = new ConcurrentHashMap<>();
  private final Subscription subscription;

  CallBoard(ToolCallRuntime runtime, Presenter presenter, Clock clock) {
    this.runtime = runtime;
    this.presenter = presenter;
    this.clock = clock;
    this.subscription = runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent e) {
          update(e.snapshot());
        }
      }
    });
    // This board is how a person reads the runtime's requests (the page lists them): reading the queue once says so,
    // so the runtime does not warn that nobody reads its requests while a browser has yet to connect.
    runtime.permissions().pending();
  }

  private void update(ToolCallSnapshot s) {
    String session = s.identity().sessionId();
    Map<String, ToolCallSnapshot> calls = sessions.computeIfAbsent(session, k -> new ConcurrentHashMap<>());
    calls.merge(s.callId(), s, (a, b) -> b.version() >= a.version() ? b : a);
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

  /** Every call of {@code session} the page should show, oldest first, as JSON views. */
  ArrayNode views(String session) {
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
        out.add(Wire.view(r, presenter.theme(), clock.instant()));
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
    Optional<PermissionRequest> r = s.state() == ToolCallState.PERMISSION_PENDING
        ? PermissionRequest.of(s).flatMap(p -> runtime.permissions().request(p.requestId()))
        : Optional.empty();
    return Wire.view(presenter.view(s), r);
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
