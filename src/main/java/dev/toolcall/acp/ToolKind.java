package dev.toolcall.acp;

import java.util.Locale;

/**
 * ACP's tool kinds: a hint an editor uses to pick an icon and a presentation for a tool call
 * ({@code ToolKind} in the protocol's schema). Chosen per tool by {@link AcpAgent.Builder#toolKinds}.
 */
public enum ToolKind {
  /** Reading files or data. */
  READ,
  /** Modifying files or content. */
  EDIT,
  /** Removing files or data. */
  DELETE,
  /** Moving or renaming files. */
  MOVE,
  /** Searching for information. */
  SEARCH,
  /** Running commands or code. */
  EXECUTE,
  /** Internal reasoning or planning. */
  THINK,
  /** Retrieving external data. */
  FETCH,
  /** Switching the session's mode. */
  SWITCH_MODE,
  /** Anything else (the protocol's default). */
  OTHER;

  /** The name on the wire: {@code read}, {@code edit}, ..., {@code switch_mode}, {@code other}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
