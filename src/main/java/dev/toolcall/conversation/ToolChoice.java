package dev.toolcall.conversation;

import java.util.Objects;

/**
 * Which tools the model may or must call in its next response: a closed set of four choices that every mainstream
 * provider understands. Immutable values; a {@link ModelClient} maps them to its provider's wire form.
 */
public sealed interface ToolChoice permits ToolChoice.Auto, ToolChoice.None, ToolChoice.Required, ToolChoice.Named {

  /** The model decides whether to call tools (the providers' default). */
  static ToolChoice auto() {
    return Auto.INSTANCE;
  }

  /** The model must not call a tool; it answers with text. */
  static ToolChoice none() {
    return None.INSTANCE;
  }

  /** The model must call at least one tool. */
  static ToolChoice required() {
    return Required.INSTANCE;
  }

  /**
   * The model must call the tool {@code toolName}, which must be offered in the same request.
   *
   * @throws IllegalArgumentException if {@code toolName} is blank
   */
  static ToolChoice tool(String toolName) {
    return new Named(toolName);
  }

  /** See {@link ToolChoice#auto()}. */
  record Auto() implements ToolChoice {
    static final Auto INSTANCE = new Auto();
  }

  /** See {@link ToolChoice#none()}. */
  record None() implements ToolChoice {
    static final None INSTANCE = new None();
  }

  /** See {@link ToolChoice#required()}. */
  record Required() implements ToolChoice {
    static final Required INSTANCE = new Required();
  }

  /**
   * See {@link ToolChoice#tool(String)}.
   *
   * @param toolName the tool the model must call; non-blank
   */
  record Named(String toolName) implements ToolChoice {
    /** Checks the name. */
    public Named {
      Checks.requireNonBlank(toolName, "toolName");
    }
  }
}
