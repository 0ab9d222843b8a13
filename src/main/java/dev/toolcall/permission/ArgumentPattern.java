package dev.toolcall.permission;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolcall.tool.ToolArguments;
import java.util.Objects;

/**
 * Which arguments a rule or a grant covers, written in the string form of rules such as {@code shell(npm test:*)}:
 * <ul>
 *   <li>{@code *} (or nothing): any arguments;</li>
 *   <li>{@code npm test:*}: a command prefix. It matches the command {@code npm test} itself and any command that
 *       continues it after a space ({@code npm test --watch}), but not {@code npm tests}. A prefix never matches a
 *       command that contains a shell control character ({@code ; & | ` $( > <} or a line break), so
 *       {@code npm test && rm -rf /} is not covered by {@code npm test:*};</li>
 *   <li>anything else: exactly that command.</li>
 * </ul>
 * The "command" of a call is the string of {@link ToolArguments.Text}, the strings of {@link ToolArguments.TextList}
 * joined by single spaces, or for {@link ToolArguments.Json} the text of its top-level {@code command} field when
 * there is one and otherwise the raw JSON. Characters are compared as they are: no case folding, no Unicode
 * normalisation.
 *
 * <p>Immutable and a plain value (a grant store persists its {@link #form()}).
 *
 * @param kind how {@code value} is compared
 * @param value the prefix or exact command (empty for {@link Kind#ANY})
 */
public record ArgumentPattern(Kind kind, String value) {

  /** How a pattern compares. */
  public enum Kind {
    /** Any arguments. */
    ANY,
    /** A command prefix at a word boundary, with no shell control characters in the command. */
    PREFIX,
    /** Exactly this command. */
    EXACT
  }

  /** Any arguments. */
  public static final ArgumentPattern ANY = new ArgumentPattern(Kind.ANY, "");

  private static final String PREFIX_SUFFIX = ":*";

  /** Checks the parts: ANY has an empty value, the others a non-empty one. */
  public ArgumentPattern {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(value, "value");
    if ((kind == Kind.ANY) != value.isEmpty()) {
      throw new IllegalArgumentException("value must be empty exactly for ANY, was kind " + kind + " value '"
          + value + "'");
    }
  }

  /** Parses the string form described above; {@code null}, empty and {@code *} mean any arguments. */
  public static ArgumentPattern parse(String form) {
    if (form == null || form.isEmpty() || form.equals("*")) {
      return ANY;
    }
    if (form.endsWith(PREFIX_SUFFIX)) {
      String prefix = form.substring(0, form.length() - PREFIX_SUFFIX.length());
      if (prefix.isEmpty()) {
        return ANY;
      }
      return new ArgumentPattern(Kind.PREFIX, prefix);
    }
    return new ArgumentPattern(Kind.EXACT, form);
  }

  /** A pattern matching commands that start with {@code prefix} (see the class comment). */
  public static ArgumentPattern prefix(String prefix) {
    return new ArgumentPattern(Kind.PREFIX, Objects.requireNonNull(prefix, "prefix"));
  }

  /** A pattern matching exactly {@code command}. */
  public static ArgumentPattern exact(String command) {
    return new ArgumentPattern(Kind.EXACT, Objects.requireNonNull(command, "command"));
  }

  /** The string form: {@code *}, {@code prefix:*} or the exact command; {@link #parse} reads it back. */
  public String form() {
    switch (kind) {
      case ANY:
        return "*";
      case PREFIX:
        return value + PREFIX_SUFFIX;
      default:
        return value;
    }
  }

  /** Whether {@code arguments} are covered. */
  public boolean matches(ToolArguments arguments) {
    Objects.requireNonNull(arguments, "arguments");
    if (kind == Kind.ANY) {
      return true;
    }
    String command = commandOf(arguments);
    if (kind == Kind.EXACT) {
      return command.equals(value);
    }
    if (!command.startsWith(value) || hasShellControl(command)) {
      return false;
    }
    return command.length() == value.length() || Character.isWhitespace(value.charAt(value.length() - 1))
        || command.charAt(value.length()) == ' ';
  }

  /** The command text a pattern is compared with (see the class comment). */
  static String commandOf(ToolArguments arguments) {
    if (arguments instanceof ToolArguments.Text t) {
      return t.value();
    }
    if (arguments instanceof ToolArguments.TextList l) {
      return String.join(" ", l.values());
    }
    ToolArguments.Json j = (ToolArguments.Json) arguments;
    JsonNode command = j.node().get("command");
    return command != null && command.isTextual() ? command.textValue() : j.raw();
  }

  private static boolean hasShellControl(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == ';' || c == '&' || c == '|' || c == '`' || c == '>' || c == '<' || c == '\n' || c == '\r'
          || (c == '$' && i + 1 < s.length() && s.charAt(i + 1) == '(')) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return form();
  }
}
