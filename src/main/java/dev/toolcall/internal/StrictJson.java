package dev.toolcall.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.CorruptSnapshotException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Set;

/**
 * Strict reading of the library's own JSON documents (runtime and agent snapshots): every field known, of its type,
 * required unless the caller says otherwise; anything else is a {@link CorruptSnapshotException} naming the entry
 * ({@code where}) and what is wrong. Not API: shared by the packages that read documents. Stateless and thread-safe.
 */
public final class StrictJson {

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private StrictJson() {}

  /** The mapper documents are read with and built with. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Reads a whole document, which must be one JSON object with nothing after it; a leading UTF-8 byte order mark
   * (as some editors add) is skipped.
   */
  public static JsonNode document(String json) {
    if (json.startsWith("\uFEFF")) {
      json = json.substring(1);
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new CorruptSnapshotException("document", "not complete JSON (truncated or malformed): "
          + e.getOriginalMessage(), e);
    }
    return object(root, "document");
  }

  /** {@code n} itself, when it is a JSON object. */
  public static JsonNode object(JsonNode n, String where) {
    if (n == null || !n.isObject()) {
      throw new CorruptSnapshotException(where, "not a JSON object");
    }
    return n;
  }

  /** Checks that every field of {@code n} is one of {@code fields}. */
  public static void known(JsonNode n, Set<String> fields, String where) {
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!fields.contains(f)) {
        throw new CorruptSnapshotException(where, "unknown field '" + f + "'");
      }
    }
  }

  /** The array in {@code field}, which must be present. */
  public static Iterable<JsonNode> array(JsonNode n, String field, String where) {
    JsonNode a = n.get(field);
    if (a == null || !a.isArray()) {
      throw new CorruptSnapshotException(where, "field '" + field + "' must be an array");
    }
    return a;
  }

  /** The string in {@code field}; absent or JSON null is an error when {@code required}, else null. */
  public static String text(JsonNode n, String field, String where, boolean required) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new CorruptSnapshotException(where, "field '" + field + "' is missing");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw new CorruptSnapshotException(where, "field '" + field + "' must be a string, was " + v.getNodeType());
    }
    return v.asText();
  }

  /** The integer in {@code field}, which must be present and fit an {@code int}. */
  public static int integer(JsonNode n, String field, String where) {
    JsonNode v = n.get(field);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new CorruptSnapshotException(where, "field '" + field + "' must be an integer");
    }
    return v.intValue();
  }

  /** The ISO-8601 instant in {@code field}; absent or JSON null is an error when {@code required}, else null. */
  public static Instant instant(JsonNode n, String field, String where, boolean required) {
    String t = text(n, field, where, required);
    if (t == null) {
      return null;
    }
    try {
      return Instant.parse(t);
    } catch (DateTimeParseException e) {
      throw new CorruptSnapshotException(where, "field '" + field + "' is not an ISO-8601 instant: '" + t + "'");
    }
  }
}
