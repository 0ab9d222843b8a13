package dev.toolcall;

/**
 * The stage {@link ToolCall#whenTerminal()} returns: one per call, made on the first request and handed to every
 * caller, completed only by its call ({@link #release}), with the terminal snapshot (see {@link OwnedStage}). Where a
 * minimal stage would cost a stage and a relay per caller (64 bytes each while the call runs or waits), this costs
 * nothing per caller.
 */
final class TerminalStage extends OwnedStage {

  TerminalStage() {
    super("a call's whenTerminal() stage completes only when the call ends");
  }

  /** Completes the stage with {@code terminal}; by its call only. Later calls do nothing. */
  void release(ToolCallSnapshot terminal) {
    settle(terminal);
  }
}
