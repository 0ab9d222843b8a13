package dev.toolcall;

/**
 * The rules of a call's retained history (its chain of {@link ToolCallSnapshot#previous()} versions): what a restored
 * history may hold, and how a stretch of live output is kept to one version once listeners have been handed it. Used
 * by {@link ToolCall} only; no state of its own.
 */
final class CallHistory {

  private CallHistory() {}

  /**
   * Refuses a history that no sequence of changes could have made: a change of state that is not an edge of the
   * matrix, or any version after a terminal one.
   *
   * @throws IllegalArgumentException naming the edge
   */
  static void check(ToolCallSnapshot snapshot) {
    for (ToolCallSnapshot s = snapshot, p = s.previous(); p != null; s = p, p = p.previous()) {
      if (p.isTerminal() || p.state() != s.state() && !ToolCallState.TABLE.allows(p.state(), s.state())) {
        throw new IllegalArgumentException("snapshot of call " + snapshot.identity().sessionId() + "/"
            + snapshot.callId() + " has a history the transition matrix forbids: v" + p.version() + " " + p.state()
            + " -> v"
            + s.version() + " " + s.state() + " (" + p.state() + " allows " + p.state().successors() + ")");
      }
    }
  }

  /**
   * The version a new chunk of output after {@code cur} links: {@code cur}, or, when {@code cur} is itself live output
   * that has been handed off ({@code curHandedOff}), the version before its stretch of output.
   */
  static ToolCallSnapshot outputLink(ToolCallSnapshot cur, boolean curHandedOff) {
    ToolCallSnapshot link = cur;
    if (cur.change() instanceof Change.OutputAppended && curHandedOff) {
      do {
        link = link.previous();
      } while (link != null && link.change() instanceof Change.OutputAppended);
    }
    return link;
  }

  /**
   * {@code nv} as built, or, when {@code cur} is live output that has been handed off ({@code curHandedOff}) and ends a
   * stretch of several chunks or carries a chunk longer than {@link Change.OutputAppended#TAIL_CHARS}, {@code nv}
   * linked to a copy of {@code cur} that links the version before the stretch and keeps the end of its chunk only.
   * What a call retains of its output once it moves on is then one version with at most twice {@code TAIL_CHARS}
   * chars (the chunk's end and the tail), however much it printed. The caller has checked that {@code cur} is output.
   */
  static ToolCallSnapshot bounded(ToolCallSnapshot cur, Change.OutputAppended o, ToolCallSnapshot nv,
      boolean curHandedOff) {
    ToolCallSnapshot p = cur.previous();
    boolean stretch = p != null && p.change() instanceof Change.OutputAppended;
    boolean longChunk = o.chunk().length() > Change.OutputAppended.TAIL_CHARS;
    if (!stretch && !longChunk || !curHandedOff) {
      return nv;
    }
    while (p != null && p.change() instanceof Change.OutputAppended) {
      p = p.previous();
    }
    Change.OutputAppended kept = longChunk ? new Change.OutputAppended(
        o.chunk().substring(o.chunk().length() - Change.OutputAppended.TAIL_CHARS), o.sequence(), o.dropped(),
        o.outputChars(), o.droppedTotal(), o.tail()) : o;
    return linked(nv, new ToolCallSnapshot(cur.identity(), cur.state(), cur.version(), cur.arguments(),
        cur.argumentsVersion(), cur.attempt(), null, kept, cur.tick(), p));
  }

  /**
   * {@code nv} as built, or, when {@code nv} leaves PENDING and {@code cur} is a change of the arguments made while
   * PENDING that has been handed off ({@code curHandedOff}), {@code nv} linked to the version before the arguments
   * changed there (the one that entered PENDING, usually version 0). The arguments a call gathers while PENDING (the
   * text a model streams, then its parsed form) are in {@code nv} itself; the versions that recorded each step were
   * handed to listeners and are not kept, so a call waiting for a person retains two versions, not one per step.
   * {@link ToolCallSnapshot#history()} and the time spent pending are unchanged: those versions changed no state.
   */
  static ToolCallSnapshot leavingPending(ToolCallSnapshot cur, ToolCallSnapshot nv, boolean curHandedOff) {
    if (cur.state() != ToolCallState.PENDING || nv.state() == ToolCallState.PENDING || !curHandedOff) {
      return nv;
    }
    ToolCallSnapshot p = cur;
    while (p.change() instanceof Change.ArgumentsModified && p.previous() != null
        && p.previous().state() == ToolCallState.PENDING) {
      p = p.previous();
    }
    return p == cur ? nv : linked(nv, p);
  }

  /** {@code s} with {@code previous} as the version it links. */
  private static ToolCallSnapshot linked(ToolCallSnapshot s, ToolCallSnapshot previous) {
    return new ToolCallSnapshot(s.identity(), s.state(), s.version(), s.arguments(), s.argumentsVersion(),
        s.attempt(), s.outcome(), s.change(), s.tick(), previous);
  }

  /** The latest output chunk in {@code s}'s history, or null. */
  static Change.OutputAppended lastOutput(ToolCallSnapshot s) {
    for (ToolCallSnapshot v = s; v != null; v = v.previous()) {
      if (v.change() instanceof Change.OutputAppended o) {
        return o;
      }
    }
    return null;
  }
}
