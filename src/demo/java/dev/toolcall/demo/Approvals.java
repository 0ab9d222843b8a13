package dev.toolcall.demo;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.ToolArguments;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The approval prompt, driven by keys on the demo's main thread: one request at a time, oldest first.
 *
 * <pre>
 * Allow shell?  [o]nce  [s]ession  [a]lways  [e]dit  [d]eny
 *   o, s, a   approve once / for the session / always (a grant)
 *   e         type a new command (Enter with nothing typed goes back)
 *   d         type a reason for the model (Enter with nothing typed: no reason)
 * </pre>
 *
 * The deploy's request is left unanswered on purpose: its deadline passes and the library denies it. A prompt whose
 * request is resolved meanwhile (timed out, cancelled) closes. In line mode (input a line at a time) a choice key
 * swallows the rest of its line, so {@code "e\nnew command\n"} edits. When the input ends, the open request is
 * denied ("nobody is at the keyboard").
 *
 * <p>Not thread-safe: the main thread only.
 */
final class Approvals {

  /** The tool whose request is left to time out. */
  static final String UNANSWERED_TOOL = "deploy";

  private enum Mode { CHOOSE, EDIT, REASON }

  private final PermissionService permissions;
  private final Ui ui;
  private final boolean lineMode;
  private final Set<String> seen = new HashSet<>();
  private final Deque<PermissionRequest> waiting = new ArrayDeque<>();
  private PermissionRequest open;
  private Mode mode;
  private final StringBuilder typed = new StringBuilder();
  private boolean swallowLine;

  Approvals(PermissionService permissions, Ui ui, boolean lineMode) {
    this.permissions = permissions;
    this.ui = ui;
    this.lineMode = lineMode;
  }

  /** Whether a prompt is open. */
  boolean isOpen() {
    return open != null;
  }

  /** Looks at the waiting requests: opens a prompt for a new one, closes one that was resolved meanwhile. */
  void poll(long now) {
    List<PermissionRequest> pending = permissions.pending();
    for (PermissionRequest r : pending) {
      if (!seen.add(r.requestId())) {
        continue;
      }
      if (r.toolName().equals(UNANSWERED_TOOL)) {
        ui.note("· " + r.toolName() + " asks for approval; the demo leaves it unanswered: it is auto-denied in "
            + Math.max(1, (r.remaining(now).toMillis() + 999) / 1000) + "s");
      } else {
        waiting.add(r);
      }
    }
    if (open != null && pending.stream().noneMatch(r -> r.requestId().equals(open.requestId()))) {
      ui.note("· the request for " + open.toolName() + " was resolved without you");
      close();
    }
    while (open == null && !waiting.isEmpty()) {
      PermissionRequest next = waiting.poll();
      if (pending.stream().anyMatch(r -> r.requestId().equals(next.requestId()))) {
        open = next;
        choose();
      }
    }
  }

  /** A key for the open prompt (ignored when none is open). */
  void key(Keys.Key k) {
    if (open == null) {
      return;
    }
    if (k == Keys.Key.Special.END_OF_INPUT) {
      decide(Decision.deny(open, "nobody is at the keyboard (the input ended)"), "denied: the input ended");
      return;
    }
    if (swallowLine) {
      if (k == Keys.Key.Special.ENTER) {
        swallowLine = false;
      }
      return;
    }
    if (mode == Mode.CHOOSE) {
      if (!(k instanceof Keys.Key.Char c)) {
        return; // arrows, Enter and other keys do nothing here
      }
      swallowLine = lineMode;
      switch (Character.toLowerCase(c.codePoint())) {
        case 'o' -> decide(Decision.approveOnce(open), "approved once");
        case 's' -> decide(Decision.approveForSession(open), "approved for this session");
        case 'a' -> decide(Decision.approveAlways(open), "approved always (a grant is stored)");
        case 'e' -> edit(Mode.EDIT);
        case 'd' -> edit(Mode.REASON);
        default -> swallowLine = false;
      }
      return;
    }
    if (k == Keys.Key.Special.ENTER) {
      String text = typed.toString().strip();
      if (mode == Mode.EDIT) {
        if (text.isEmpty()) {
          choose();
        } else {
          ToolArguments edited = ToolArguments.ofJson(JsonNodeFactory.instance.objectNode().put("command", text));
          decide(Decision.approveModified(open, edited), "approved with the command edited to: " + text);
        }
      } else {
        decide(Decision.deny(open, text), "denied" + (text.isEmpty() ? "" : ", reason for the model: " + text));
      }
    } else if (k == Keys.Key.Special.BACKSPACE) {
      if (typed.length() > 0) {
        typed.setLength(typed.offsetByCodePoints(typed.length(), -1));
      }
      showTyped();
    } else if (k instanceof Keys.Key.Char c) {
      typed.appendCodePoint(c.codePoint());
      showTyped();
    }
  }

  private void choose() {
    mode = Mode.CHOOSE;
    typed.setLength(0);
    ui.prompt("Allow " + open.toolName() + "?  [o]nce  [s]ession  [a]lways  [e]dit  [d]eny",
        null);
  }

  private void edit(Mode m) {
    mode = m;
    typed.setLength(0);
    showTyped();
  }

  private void showTyped() {
    ui.prompt(mode == Mode.EDIT ? "New command (Enter with nothing goes back): "
        : "Reason for the model (Enter for none): ", typed.toString());
  }

  private void decide(Decision d, String what) {
    PermissionRequest r = open;
    close();
    DecisionResult result = permissions.decide(r.requestId(), d);
    if (result instanceof DecisionResult.Won) {
      ui.note("✔ " + r.toolName() + ": " + what);
    } else if (result instanceof DecisionResult.Lost lost) {
      ui.note("· too late for " + r.toolName() + ": it is " + lost.winnerState().wireName() + " already");
    } else {
      ui.note("· " + r.toolName() + ": the decision was not taken (" + result + ")");
    }
  }

  private void close() {
    open = null;
    mode = null;
    typed.setLength(0);
    ui.clearPrompt();
  }

  /** How long until the next poll is useful. */
  static Duration pollInterval() {
    return Duration.ofMillis(40);
  }
}
