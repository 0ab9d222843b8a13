package dev.toolcall;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One part of a {@link ToolResult}: text, or content the library passes through untouched (an image, audio, a link
 * to a resource, or an embedded resource), as MCP tool results carry them. Immutable and thread-safe.
 *
 * <p>Binary data is held as base64 text, the way model providers and MCP carry it, and is never copied by the
 * library: every event, snapshot and view of a call shares the one string its tool returned. What the model reads
 * for a part is {@link #modelText()}: a text part's text, and for the others a short placeholder that names the part
 * and its size (the data itself never goes into model text).
 */
public sealed interface ToolContent
    permits ToolContent.Text, ToolContent.Image, ToolContent.Audio, ToolContent.ResourceLink, ToolContent.Resource {

  /** What the model reads for this part; see {@link ToolResult#content()}. */
  String modelText();

  /** A text part. */
  static Text text(String text) {
    return new Text(text);
  }

  /** An image, as base64 data. */
  static Image image(String mimeType, String base64Data) {
    return new Image(mimeType, base64Data);
  }

  /**
   * Text.
   *
   * @param text the text, possibly empty
   */
  record Text(String text) implements ToolContent {
    /** Checks the text is present. */
    public Text {
      Objects.requireNonNull(text, "text");
    }

    @Override
    public String modelText() {
      return text;
    }
  }

  /**
   * An image.
   *
   * @param mimeType such as {@code image/png}
   * @param data the bytes, base64-encoded
   */
  record Image(String mimeType, String data) implements ToolContent {
    /** Checks the parts are present. */
    public Image {
      requireText(mimeType, "mimeType");
      Objects.requireNonNull(data, "data");
    }

    /** The decoded size in bytes, from the length of the base64 text. */
    public long sizeBytes() {
      return decodedSize(data);
    }

    @Override
    public String modelText() {
      return "[image: " + mimeType + ", " + describeSize(sizeBytes()) + "]";
    }

    @Override
    public String toString() {
      return "Image[" + mimeType + ", " + describeSize(sizeBytes()) + "]";
    }
  }

  /**
   * Audio.
   *
   * @param mimeType such as {@code audio/wav}
   * @param data the bytes, base64-encoded
   */
  record Audio(String mimeType, String data) implements ToolContent {
    /** Checks the parts are present. */
    public Audio {
      requireText(mimeType, "mimeType");
      Objects.requireNonNull(data, "data");
    }

    /** The decoded size in bytes, from the length of the base64 text. */
    public long sizeBytes() {
      return decodedSize(data);
    }

    @Override
    public String modelText() {
      return "[audio: " + mimeType + ", " + describeSize(sizeBytes()) + "]";
    }

    @Override
    public String toString() {
      return "Audio[" + mimeType + ", " + describeSize(sizeBytes()) + "]";
    }
  }

  /**
   * A link to a resource the tool did not embed.
   *
   * @param uri where it is
   * @param name its name (may be empty)
   * @param mimeType its type, when known
   */
  record ResourceLink(String uri, String name, Optional<String> mimeType) implements ToolContent {
    /** Checks the parts are present. */
    public ResourceLink {
      requireText(uri, "uri");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(mimeType, "mimeType");
    }

    @Override
    public String modelText() {
      return "[resource link: " + (name.isEmpty() ? uri : name + " <" + uri + ">")
          + mimeType.map(m -> ", " + m).orElse("") + "]";
    }
  }

  /**
   * A resource embedded in the result: its text, or its bytes as base64 ({@code blob}); exactly one is present.
   *
   * @param uri its URI
   * @param mimeType its type, when known
   * @param text its text, for a text resource
   * @param blob its bytes base64-encoded, for a binary resource
   */
  record Resource(String uri, Optional<String> mimeType, Optional<String> text, Optional<String> blob)
      implements ToolContent {
    /** Checks the parts are present and exactly one of text and blob is. */
    public Resource {
      requireText(uri, "uri");
      Objects.requireNonNull(mimeType, "mimeType");
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(blob, "blob");
      if (text.isPresent() == blob.isPresent()) {
        throw new IllegalArgumentException("resource '" + uri + "' needs exactly one of text and blob, had "
            + (text.isPresent() ? "both" : "neither"));
      }
    }

    /** A text resource. */
    public static Resource ofText(String uri, String mimeType, String text) {
      return new Resource(uri, Optional.ofNullable(mimeType), Optional.of(text), Optional.empty());
    }

    /** A binary resource. */
    public static Resource ofBlob(String uri, String mimeType, String base64) {
      return new Resource(uri, Optional.ofNullable(mimeType), Optional.empty(), Optional.of(base64));
    }

    @Override
    public String modelText() {
      if (text.isPresent()) {
        return text.get();
      }
      return "[resource: " + uri + mimeType.map(m -> ", " + m).orElse("") + ", "
          + describeSize(decodedSize(blob.get())) + "]";
    }

    @Override
    public String toString() {
      return "Resource[" + uri + mimeType.map(m -> ", " + m).orElse("")
          + text.map(t -> ", " + t.length() + " chars of text").orElse("")
          + blob.map(b -> ", " + describeSize(decodedSize(b))).orElse("") + "]";
    }
  }

  private static void requireText(String s, String name) {
    Objects.requireNonNull(s, name);
    if (s.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }

  /**
   * The decoded size of unbroken base64 text (either alphabet, padded or not), from its length and padding, in
   * constant time. Up to two trailing {@code =} are padding; of the characters before them, each full group of 4
   * carries 3 bytes and a remainder of 2 or 3 carries 1 or 2 (a remainder of 1 carries none: it is broken base64).
   * Never negative, whatever the text.
   */
  static long decodedSize(String base64) {
    int n = base64.length();
    int pad = 0;
    while (pad < 2 && n - pad > 0 && base64.charAt(n - pad - 1) == '=') {
      pad++;
    }
    int letters = n - pad;
    int rest = letters % 4;
    return (long) (letters / 4) * 3 + (rest == 0 ? 0 : rest - 1);
  }

  /** A size for people: bytes, KB or MB with one decimal. */
  static String describeSize(long bytes) {
    if (bytes < 1024) {
      return bytes + " bytes";
    }
    if (bytes < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024.0));
  }
}
