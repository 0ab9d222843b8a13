package dev.toolcall.permission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Grants in a JSON file: {@code {"version":1,"grants":[{"id":..,"tool":..,"arguments":"npm test:*",
 * "createdAt":"..","expiresAt":".."}]}}. Reads are served from memory; each change is written to a temporary file in
 * the same directory and moved over the old file with {@code ATOMIC_MOVE}, under {@code this}.
 */
final class JsonFileGrantStore extends InMemoryGrantStore {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int FORMAT = 1;

  private final Path file;

  JsonFileGrantStore(Path file) {
    super(read(file));
    this.file = file;
  }

  @Override
  void replace(List<Grant> next) {
    write(next);
    super.replace(next);
  }

  private static List<Grant> read(Path file) {
    if (!Files.exists(file)) {
      return List.of();
    }
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read grant file " + file, e);
    }
    if (root == null || !root.isObject() || root.path("version").asInt() != FORMAT || !root.path("grants").isArray()) {
      throw new IllegalArgumentException("grant file " + file + " must be {\"version\":" + FORMAT
          + ",\"grants\":[...]}");
    }
    List<Grant> out = new ArrayList<>();
    for (JsonNode g : root.get("grants")) {
      try {
        String expires = g.path("expiresAt").asText(null);
        out.add(new Grant(g.path("id").asText(null), g.path("tool").asText(null),
            ArgumentPattern.parse(g.path("arguments").asText("*")), Instant.parse(g.path("createdAt").asText("")),
            expires == null ? null : Instant.parse(expires)));
      } catch (RuntimeException e) {
        if (e instanceof DateTimeParseException || e instanceof IllegalArgumentException
            || e instanceof NullPointerException) {
          throw new IllegalArgumentException("grant file " + file + " holds a malformed grant " + g, e);
        }
        throw e;
      }
    }
    return out;
  }

  private void write(List<Grant> grants) {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", FORMAT);
    ArrayNode arr = root.putArray("grants");
    for (Grant g : grants) {
      ObjectNode n = arr.addObject();
      n.put("id", g.id());
      n.put("tool", g.toolName());
      n.put("arguments", g.arguments().form());
      n.put("createdAt", g.createdAt().toString());
      if (g.expiresAt() != null) {
        n.put("expiresAt", g.expiresAt().toString());
      }
    }
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = null;
    try {
      Files.createDirectories(dir);
      tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
      JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), root);
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
    return "JsonFileGrantStore[" + file + ", " + grants().size() + " grants]";
  }
}
