package dev.toolcall.permission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * Grants in a JSON file: {@code {"version":2,"grants":[{"id":..,"tool":..,"match":"prefix","arguments":"npm test",
 * "createdAt":"..","expiresAt":".."}]}}. {@code match} is {@code any} (then there is no {@code arguments}),
 * {@code prefix} or {@code exact}, and {@code arguments} is the prefix or the command exactly, whatever its text
 * ({@code *} and {@code ls:*} are commands like any other), so every pattern reads back as it was written. The file
 * is written with every character outside ASCII escaped, so any Java string (a lone surrogate too) survives.
 *
 * <p><b>Strict reading.</b> The file is security configuration, so nothing malformed is read leniently: every
 * grant must have exactly the fields {@code id}, {@code tool}, {@code match}, {@code arguments} (absent exactly for
 * {@code any}), {@code createdAt} and optionally {@code expiresAt}, each a JSON string; the dates ISO-8601 instants.
 * Anything else rejects the whole file with an {@link IllegalArgumentException} naming the entry and the field, so
 * a hand-edited entry can never widen a grant.
 *
 * <p><b>Version 1 files</b> (one string {@code arguments}: {@code *}, {@code prefix:*} or an exact command, no
 * {@code match}) are read with {@link ArgumentPattern#fromLegacyForm}, never wider than written: {@code *} and
 * {@code x:*} are read as those exact commands, with a warning naming the grant (approve again to widen it). The next
 * change writes the file as version 2.
 *
 * <p><b>Several writers.</b> Each change takes a lock (an in-process lock per file, then an exclusive
 * {@link FileLock} on {@code <file>.lock}, a sibling that is never replaced), re-reads the file, applies the change
 * to what it read (so grants added or revoked by another process or store on the same file are kept), writes a
 * temporary file in the same directory and moves it over the old one with {@code ATOMIC_MOVE}. Readers need no lock:
 * a reader sees the old or the new file whole. {@link #grants()} re-reads the file when its modification time or
 * size changed since it was last read.
 */
final class JsonFileGrantStore extends InMemoryGrantStore {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JsonFileGrantStore.class);
  private static final com.fasterxml.jackson.databind.ObjectWriter WRITER = JSON.writerWithDefaultPrettyPrinter()
      .with(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII);
  private static final int FORMAT = 2;
  private static final int LEGACY_FORMAT = 1;
  private static final Set<String> FIELDS = Set.of("id", "tool", "match", "arguments", "createdAt", "expiresAt");
  private static final Set<String> LEGACY_FIELDS = Set.of("id", "tool", "arguments", "createdAt", "expiresAt");
  /** One lock per file within this JVM: a FileLock is held per process, not per thread or store. */
  private static final ConcurrentHashMap<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

  private final Path file;
  private final Path lockFile;
  /** What the file looked like when last read or written; guarded by this. */
  private FileTime seenTime;
  private long seenSize = -1;

  JsonFileGrantStore(Path file) {
    this.file = file.toAbsolutePath().normalize();
    this.lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
    install(read(this.file));
    remember();
  }

  @Override
  public List<Grant> grants() {
    synchronized (this) {
      if (changedOnDisk()) {
        install(read(file));
        remember();
      }
    }
    return super.grants();
  }

  @Override
  @SuppressWarnings("try") // the file lock is held by the try, not used in it
  void update(UnaryOperator<List<Grant>> change) {
    ReentrantLock inProcess = LOCKS.computeIfAbsent(file, f -> new ReentrantLock());
    inProcess.lock();
    try {
      Files.createDirectories(file.getParent());
      try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = channel.lock()) {
        List<Grant> stored = read(file);
        List<Grant> next = change.apply(stored);
        if (next != stored) {
          write(next);
        }
        install(next);
        remember();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot update grant file " + file, e);
    } finally {
      inProcess.unlock();
    }
  }

  private boolean changedOnDisk() {
    try {
      if (!Files.exists(file)) {
        return seenSize != -1;
      }
      return !Files.getLastModifiedTime(file).equals(seenTime) || Files.size(file) != seenSize;
    } catch (IOException e) {
      return false; // keep what was read; the next change re-reads under the lock anyway
    }
  }

  private void remember() {
    try {
      if (Files.exists(file)) {
        seenTime = Files.getLastModifiedTime(file);
        seenSize = Files.size(file);
      } else {
        seenTime = null;
        seenSize = -1;
      }
    } catch (IOException e) {
      seenTime = null;
      seenSize = -2; // unknown: read again next time
    }
  }

  static List<Grant> read(Path file) {
    if (!Files.exists(file)) {
      return List.of();
    }
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read grant file " + file, e);
    }
    int version = root != null && root.path("version").isInt() ? root.path("version").asInt() : -1;
    if (root == null || !root.isObject() || (version != FORMAT && version != LEGACY_FORMAT)
        || !root.path("grants").isArray()) {
      throw new IllegalArgumentException("grant file " + file + " must be {\"version\":" + FORMAT
          + ",\"grants\":[...]}" + (version > FORMAT ? " (version " + version + " was written by a newer version"
          + " of the library)" : ""));
    }
    List<Grant> out = new ArrayList<>();
    int i = 0;
    for (JsonNode g : root.get("grants")) {
      out.add(grant(file, i++, g, version == LEGACY_FORMAT));
    }
    return List.copyOf(out);
  }

  /** One entry, read strictly: any malformed field rejects the file, naming the entry and the field. */
  private static Grant grant(Path file, int index, JsonNode g, boolean legacy) {
    String where = "grant file " + file + ", grant #" + index;
    if (!g.isObject()) {
      throw new IllegalArgumentException(where + " must be an object, was " + g.getNodeType());
    }
    Set<String> fields = legacy ? LEGACY_FIELDS : FIELDS;
    for (Iterator<String> names = g.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!fields.contains(name)) {
        throw new IllegalArgumentException(where + " has an unknown field '" + name + "'; the fields are " + fields);
      }
    }
    String id = text(g, "id", where, true);
    where += " (id " + id + ")";
    String tool = text(g, "tool", where, true);
    ArgumentPattern pattern = legacy ? legacyPattern(g, where) : pattern(g, where);
    Instant createdAt = instant(g, "createdAt", where, true);
    Instant expiresAt = instant(g, "expiresAt", where, false);
    try {
      return new Grant(id, tool, pattern, createdAt, expiresAt);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(where + " is not a valid grant: " + e.getMessage(), e);
    }
  }

  /** {@code match} and {@code arguments}: the kind and the value, apart. */
  private static ArgumentPattern pattern(JsonNode g, String where) {
    ArgumentPattern.Kind kind;
    try {
      kind = ArgumentPattern.Kind.fromWireName(text(g, "match", where, true));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": field 'match': " + e.getMessage(), e);
    }
    String value = text(g, "arguments", where, kind != ArgumentPattern.Kind.ANY);
    if (kind == ArgumentPattern.Kind.ANY) {
      if (value != null) {
        throw new IllegalArgumentException(where + ": a grant whose match is 'any' has no field 'arguments'");
      }
      return ArgumentPattern.ANY;
    }
    if (value.isEmpty()) {
      throw new IllegalArgumentException(where + ": field 'arguments' must not be empty for match '"
          + kind.wireName() + "'");
    }
    return new ArgumentPattern(kind, value);
  }

  /** A version 1 entry: one string, read never wider than it was written. */
  private static ArgumentPattern legacyPattern(JsonNode g, String where) {
    String arguments = text(g, "arguments", where, true);
    if (arguments.isEmpty()) {
      throw new IllegalArgumentException(where + ": field 'arguments' is empty, which no version wrote; '*' was any"
          + " arguments");
    }
    if (ArgumentPattern.isAmbiguousLegacyForm(arguments)) {
      LOG.warn("{}: arguments '{}' were written by a version 1 grant file, where they meant either {} or the exact"
          + " command; read as the exact command '{}' (never wider than written). Approve again for more.", where,
          arguments, arguments.equals("*") ? "any arguments" : "a prefix", arguments);
    }
    return ArgumentPattern.fromLegacyForm(arguments);
  }

  private static String text(JsonNode g, String field, String where, boolean required) {
    JsonNode v = g.get(field);
    if (v == null) {
      if (required) {
        throw new IllegalArgumentException(where + " has no field '" + field + "'");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException(where + ": field '" + field + "' must be a string, was "
          + v.getNodeType());
    }
    return v.textValue();
  }

  private static Instant instant(JsonNode g, String field, String where, boolean required) {
    String s = text(g, field, where, required);
    if (s == null) {
      return null;
    }
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(where + ": field '" + field + "' must be an ISO-8601 instant such as "
          + "2026-01-31T12:00:00Z, was '" + s + "'", e);
    }
  }

  private void write(List<Grant> grants) {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", FORMAT);
    ArrayNode arr = root.putArray("grants");
    for (Grant g : grants) {
      ObjectNode n = arr.addObject();
      n.put("id", g.id());
      n.put("tool", g.toolName());
      n.put("match", g.arguments().kind().wireName());
      if (g.arguments().kind() != ArgumentPattern.Kind.ANY) {
        n.put("arguments", g.arguments().value());
      }
      n.put("createdAt", g.createdAt().toString());
      if (g.expiresAt() != null) {
        n.put("expiresAt", g.expiresAt().toString());
      }
    }
    Path dir = file.getParent();
    Path tmp = null;
    try {
      Files.createDirectories(dir);
      tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
      WRITER.writeValue(tmp.toFile(), root);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new UncheckedIOException("the file system of " + file + " cannot replace files atomically", e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write grant file " + file, e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // the move succeeded or the write already failed; nothing more to do
        }
      }
    }
  }

  @Override
  public String toString() {
    return "JsonFileGrantStore[" + file + ", " + super.grants().size() + " grants]";
  }
}
