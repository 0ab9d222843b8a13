package dev.toolcall.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.CorruptSnapshotException;
import dev.toolcall.runtime.RuntimeSnapshot;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One file kept current with everything a crash must not lose: the runtime's {@link RuntimeSnapshot} and the
 * {@link AgentSnapshot} of each agent it tracks, written together in one document, atomically, after every change on
 * the runtime's event bus. A process killed at any moment (even {@code kill -9}) leaves the document as it was after
 * some change: the next process reads it with {@link #read} and goes on.
 *
 * <pre>{@code
 * StateFile state = StateFile.keep(file, runtime, agent);       // kept current from now on
 * // ... the process is killed; the next one:
 * StateFile.Saved saved = StateFile.read(file).orElseThrow();
 * List<Batch> owed = runtime.restore(saved.runtime());
 * Agent agent = Agent.builder(model, runtime).resume(saved.agent("conv-7").orElseThrow()).build();
 * agent.resume(owed);
 * }</pre>
 *
 * <p><b>What is written, and when.</b> Each event marks the state changed; one background thread writes the document
 * (the agents' snapshots first, then the runtime's, as {@link AgentSnapshot} requires, so a call that ends between
 * them is in neither and never in both), and writes again if more changed meanwhile, so a burst of changes costs one
 * write. The write goes to a temporary file beside {@code file}, is forced to disk and moved over it in one step
 * ({@code ATOMIC_MOVE}): a reader sees the old document or the new one. A change is kept once the write that follows
 * it has landed; {@link #flush} writes at once and returns when it has.
 *
 * <p><b>Failures.</b> A write that fails is logged (WARN, once until a write lands again) and tried again with the
 * next change or {@link #flush}, which throws it. Closing writes a last time and stops watching; it does not close the
 * runtime. Thread-safe.
 */
public final class StateFile implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StateFile.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The document's format name. */
  public static final String FORMAT = "toolcall-lifecycle/state-file";
  /** The document's schema version. */
  public static final int SCHEMA_VERSION = 1;

  private final Path file;
  private final ToolCallRuntime runtime;
  private final List<Agent> agents = new CopyOnWriteArrayList<>();
  private final Object writeLock = new Object();
  private final AtomicBoolean queued = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread writer;
  private final Subscription subscription;
  /** Guarded by writeLock: whether the last write failed (so the next failure is not logged again). */
  private boolean failing;

  private StateFile(Path file, ToolCallRuntime runtime, List<Agent> agents) {
    this.file = file.toAbsolutePath();
    this.runtime = runtime;
    this.agents.addAll(agents);
    this.writer = new Thread(this::writeLoop, "toolcall-state-file");
    this.writer.setDaemon(true);
    this.subscription = runtime.events().subscribe(EventListener.of(e -> changed()));
    this.writer.start();
  }

  /**
   * Starts keeping {@code file} current with {@code runtime}'s state and that of {@code agents} (each an agent on
   * {@code runtime}), writing it once now.
   *
   * @throws UncheckedIOException if the first write fails (the directory is missing or not writable, say)
   */
  public static StateFile keep(Path file, ToolCallRuntime runtime, Agent... agents) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(runtime, "runtime");
    for (Agent a : Objects.requireNonNull(agents, "agents")) {
      Objects.requireNonNull(a, "agents must not hold null");
    }
    StateFile f = new StateFile(file, runtime, List.of(agents));
    try {
      f.flush();
    } catch (IOException e) {
      f.close0(false);
      throw new UncheckedIOException("cannot write state file " + file, e);
    }
    return f;
  }

  /** Tracks one more agent on the same runtime from now on (its next change, or this call, writes it). */
  public StateFile track(Agent agent) {
    agents.add(Objects.requireNonNull(agent, "agent"));
    changed();
    return this;
  }

  /** Stops tracking {@code agent} (a conversation that is over); returns whether it was tracked. */
  public boolean untrack(Agent agent) {
    boolean was = agents.remove(Objects.requireNonNull(agent, "agent"));
    changed();
    return was;
  }

  /** Writes the document now and returns once it has landed. */
  public void flush() throws IOException {
    synchronized (writeLock) {
      write();
    }
  }

  /** Writes a last time (a failure is logged) and stops watching the runtime. Idempotent. */
  @Override
  public void close() {
    close0(true);
  }

  private void close0(boolean lastWrite) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    subscription.close();
    writer.interrupt();
    if (lastWrite) {
      synchronized (writeLock) {
        try {
          write();
        } catch (IOException e) {
          log.warn("state file {}: the last write failed: {}", file, e.toString());
        }
      }
    }
  }

  private void changed() {
    if (queued.compareAndSet(false, true)) {
      java.util.concurrent.locks.LockSupport.unpark(writer);
    }
  }

  private void writeLoop() {
    while (!closed.get()) {
      if (!queued.getAndSet(false)) {
        java.util.concurrent.locks.LockSupport.park(this);
        continue;
      }
      synchronized (writeLock) {
        if (closed.get()) {
          return;
        }
        try {
          write();
        } catch (IOException | RuntimeException e) {
          if (!failing) {
            log.warn("state file {}: a write failed; it is tried again with the next change: {}", file, e.toString());
          }
          failing = true;
        }
      }
    }
  }

  /** Under writeLock. */
  private void write() throws IOException {
    StringBuilder doc = new StringBuilder(4096);
    doc.append("{\"format\":\"").append(FORMAT).append("\",\"schemaVersion\":").append(SCHEMA_VERSION)
        .append(",\"agents\":[");
    boolean first = true;
    for (Agent a : agents) { // the agents first, then the runtime (see AgentSnapshot)
      doc.append(first ? "" : ",").append(a.snapshot().toJson());
      first = false;
    }
    doc.append("],\"runtime\":").append(runtime.snapshot().toJson()).append('}');
    Path dir = file.getParent();
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer bytes = ByteBuffer.wrap(doc.toString().getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) {
          ch.write(bytes);
        }
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the file system of " + file + " cannot replace files atomically", e);
      }
      failing = false;
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * What a state file held: the runtime's snapshot and each tracked agent's, for {@link ToolCallRuntime#restore} and
   * {@link Agent.Builder#resume}.
   *
   * @param runtime the runtime's snapshot
   * @param agents the agents' snapshots, in the order they were tracked
   */
  public record Saved(RuntimeSnapshot runtime, List<AgentSnapshot> agents) {
    /** Checks the parts. */
    public Saved {
      Objects.requireNonNull(runtime, "runtime");
      agents = List.copyOf(Objects.requireNonNull(agents, "agents"));
    }

    /** The snapshot of the agent whose conversation is {@code conversationId}, if it was tracked. */
    public Optional<AgentSnapshot> agent(String conversationId) {
      Objects.requireNonNull(conversationId, "conversationId");
      return agents.stream().filter(a -> a.conversation().conversationId().equals(conversationId)).findFirst();
    }
  }

  /**
   * Reads a state file; empty when there is none.
   *
   * @throws CorruptSnapshotException naming the bad entry, if the file is not a whole state file this version can
   *     read (nothing of it is used then)
   */
  public static Optional<Saved> read(Path file) throws IOException {
    Objects.requireNonNull(file, "file");
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    if (text.startsWith("\uFEFF")) {
      text = text.substring(1);
    }
    JsonNode root;
    try {
      root = JSON.readTree(text);
    } catch (IOException e) {
      throw new CorruptSnapshotException("document", "not complete JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject() || !FORMAT.equals(root.path("format").asText(null))) {
      throw new CorruptSnapshotException("format", "not a state file (format '" + FORMAT + "')");
    }
    if (root.path("schemaVersion").asInt(-1) != SCHEMA_VERSION || root.size() != 4
        || !root.path("agents").isArray() || !root.path("runtime").isObject()) {
      throw new CorruptSnapshotException("document", "a state file of schema " + SCHEMA_VERSION + " has exactly"
          + " format, schemaVersion, agents (an array) and runtime (an object); was " + root.size()
          + " fields, schema " + root.path("schemaVersion"));
    }
    List<AgentSnapshot> agents = new ArrayList<>();
    int i = 0;
    for (JsonNode a : root.get("agents")) {
      try {
        agents.add(AgentSnapshot.fromJson(a.toString()));
      } catch (RuntimeException e) {
        throw new CorruptSnapshotException("agents[" + i + "]", e.getMessage(), e);
      }
      i++;
    }
    return Optional.of(new Saved(RuntimeSnapshot.fromJson(root.get("runtime").toString()), agents));
  }

  @Override
  public String toString() {
    return "StateFile[" + file + ", " + agents.size() + " agents]";
  }
}
