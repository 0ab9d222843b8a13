package dev.toolcall.permission;

import dev.toolcall.ToolArguments;
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
 * <p>Immutable and a plain value. {@link #form()} is the rule spelling, for people; it cannot tell every pattern
 * apart (the exact command {@code *} and any arguments are both {@code *}; the exact command {@code ls:*} and the
 * prefix {@code ls} are both {@code ls:*}), so nothing the library writes stores it: every stored form (a runtime
 * snapshot, a grant file, the PostgreSQL store) writes the {@link Kind#wireName() kind} and the {@link #value()}
 * apart, and reads them back exactly. {@link #fromLegacyForm} reads the one-string spelling older versions stored,
 * never wider than it was written.
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
    EXACT;

    /** The name stored forms write: {@code any}, {@code prefix} or {@code exact}. */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The kind a stored form names.
     *
     * @throws IllegalArgumentException if {@code wireName} is not {@code any}, {@code prefix} or {@code exact}
     */
    public static Kind fromWireName(String wireName) {
      for (Kind k : values()) {
        if (k.wireName().equals(wireName)) {
          return k;
        }
      }
      throw new IllegalArgumentException("the kind of an argument pattern must be 'any', 'prefix' or 'exact', was "
          + (wireName == null ? "null" : "'" + wireName + "'"));
    }
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

  /**
   * Reads the one-string spelling that versions before the stored kind wrote ({@code *}, {@code prefix:*} or an exact
   * command) without ever reading it wider than it may have been written. That spelling is ambiguous: {@code *} was
   * both any arguments and the exact command {@code *}, {@code x:*} both the prefix {@code x} and the exact command
   * {@code x:*}. An ambiguous spelling is read as the exact command it spells, the narrowest of its meanings (a
   * grant that meant more asks again); any other text is that exact command.
   *
   * @param form the stored text, not null
   * @return the narrowest pattern {@code form} may have meant
   * @throws IllegalArgumentException if {@code form} is empty (no version wrote that)
   */
  public static ArgumentPattern fromLegacyForm(String form) {
    Objects.requireNonNull(form, "form");
    if (form.isEmpty()) {
      throw new IllegalArgumentException("an empty argument pattern was never written; '*' was any arguments");
    }
    return new ArgumentPattern(Kind.EXACT, form);
  }

  /** Whether {@code form}, a legacy stored spelling, may mean more than one pattern (see {@link #fromLegacyForm}). */
  public static boolean isAmbiguousLegacyForm(String form) {
    return form.equals("*") || form.endsWith(PREFIX_SUFFIX);
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
    return j.text("command").orElse(j.raw()); // no copy of the tree per rule
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
