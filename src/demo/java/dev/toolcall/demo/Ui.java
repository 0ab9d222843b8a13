package dev.toolcall.demo;

import dev.toolcall.ConversationState;
import dev.toolcall.conversation.ModelDelta;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.presentation.LiveDisplay;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What the person sees besides the list of calls: the model's text as it streams, the conversation's state on a
 * status line, and the approval prompt with what has been typed.
 *
 * <p>On a terminal (ANSI) these are the live display's footer, repainted in place with the list, so a repaint never
 * tears a line being typed; a finished model response and notes are printed above the list. Without a terminal
 * (plain) everything is an appended line.
 *
 * <p>Thread-safe: the model's thread, the event thread and the main thread update it; the display's thread reads
 * the footer. State is guarded by {@code this}; nothing is printed while holding it (printing waits for the display's
 * thread, which takes the lock to read the footer).
 */
final class Ui {

  /** The words before the approval page's address. */
  static final String WEB = "Approvals are answered in the browser: ";

  private static final String[] SPINNER = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};

  private final PrintStream out;
  private final boolean ansi;
  private final boolean echoTyped;
  private final int width;
  private final long start = System.nanoTime();
  private volatile LiveDisplay live;

  // guarded by this
  private String state = "starting";
  private int roundTrip;
  private final StringBuilder streamText = new StringBuilder();
  private final StringBuilder streamCalls = new StringBuilder();
  private String prompt;
  private String typed;
  private String webUrl;
  private boolean ended;

  /**
   * @param echoTyped whether the prompt line shows what is typed (keys arrive unechoed, one at a time)
   * @param width the terminal's columns (ANSI footer lines are cut to it)
   */
  Ui(PrintStream out, boolean ansi, boolean echoTyped, int width) {
    this.out = out;
    this.ansi = ansi;
    this.echoTyped = echoTyped;
    this.width = width;
  }

  void attach(LiveDisplay display) {
    this.live = display;
    display.footer(this::footer);
  }

  /** Prints a line above the list (plain: appends it). */
  void note(String text) {
    LiveDisplay d = live;
    if (d != null && !d.isClosed()) {
      d.printAbove(text);
    } else {
      out.println(text);
      out.flush();
    }
  }

  /** A conversation event: the status line (ANSI) or a line (plain). */
  void onConversation(ConversationEvent e) {
    String label = label(e.to());
    if (e.to() == ConversationState.TRANSIENT_FAILURE
        && e.snapshot().detail() instanceof dev.toolcall.StateDetail.TransientFailure tf) {
      label = (e.from() == ConversationState.EXECUTING_TOOLS ? "a tool call waits to retry" : "retrying the model")
          + ", retry " + tf.retryCount();
    }
    synchronized (this) {
      state = label;
      roundTrip = e.snapshot().roundTrips();
    }
    if (!ansi && !e.isCreation()) {
      note("· conversation: " + e.to().wireName() + " (" + label + ")");
    }
  }

  /**
   * A delta of the model's response, on the model's thread. The text and the calls stream into the footer; once
   * the response is complete, a response with tool calls is printed above the list (the final answer is printed
   * after the list, at the end of the turn).
   */
  void onDelta(ModelDelta d) {
    String done = null;
    synchronized (this) {
      if (ended) {
        return;
      }
      if (d instanceof ModelDelta.Text t) {
        streamText.append(t.text());
      } else if (d instanceof ModelDelta.ToolCallStarted s) {
        streamCalls.append(streamCalls.length() == 0 ? "" : ", ").append(s.toolName()).append(' ');
      } else if (d instanceof ModelDelta.ToolCallArguments a) {
        streamCalls.append(a.fragment());
      } else if (d instanceof ModelDelta.ResponseCompleted) {
        if (streamCalls.length() > 0) {
          done = streamText.toString().strip();
        }
        streamText.setLength(0);
        streamCalls.setLength(0);
      }
    }
    if (done != null && !done.isEmpty()) {
      note(wrap("model ▸ " + done));
    }
  }

  /** Shows a prompt; {@code typed} is what was typed so far, or null when the prompt takes single keys. */
  void prompt(String text, String typed) {
    boolean changed;
    synchronized (this) {
      changed = !text.equals(prompt);
      prompt = text;
      this.typed = typed;
    }
    if (!ansi && changed) {
      note(text);
    }
  }

  /**
   * The approval page's address: on a terminal it stays in the footer (a line printed above the list would be
   * scrolled away or overdrawn by the repaints); without one it is printed once.
   */
  void web(String url) {
    if (!ansi) {
      note(WEB + url);
      return;
    }
    synchronized (this) {
      webUrl = url;
    }
  }

  void clearPrompt() {
    synchronized (this) {
      prompt = null;
      typed = null;
    }
  }

  /** The turn ended: no more streaming or status. */
  void end() {
    synchronized (this) {
      ended = true;
      prompt = null;
      streamText.setLength(0);
      streamCalls.setLength(0);
    }
  }

  /** The footer lines: the streaming response, the prompt, the status line. */
  synchronized List<String> footer() {
    List<String> lines = new ArrayList<>(3);
    if (ended) {
      return lines;
    }
    if (streamText.length() > 0 || streamCalls.length() > 0) {
      String s = "model ▸ " + streamText.toString().replace('\n', ' ')
          + (streamCalls.length() > 0 ? " → " + streamCalls : "");
      lines.add(tail(s, width - 2));
    }
    if (prompt != null) {
      lines.add(typed == null ? prompt : tail(prompt + (echoTyped ? typed + "▏" : ""), width - 2));
    }
    if (webUrl != null) {
      lines.addAll(webLines(webUrl, width - 1));
    }
    long elapsed = System.nanoTime() - start;
    String spin = SPINNER[(int) ((elapsed / 80_000_000L) % SPINNER.length)];
    lines.add(spin + " " + state + (roundTrip > 0 ? " · round trip " + roundTrip : "") + " · "
        + seconds(elapsed) + " · Esc or Ctrl-C cancels");
    return lines;
  }

  /**
   * {@code text} with its later lines indented under the text after a leading {@code "name ▸ "}, and on a terminal
   * word-wrapped to the width.
   */
  String wrap(String text) {
    int mark = text.indexOf("▸ ");
    String indent = mark >= 0 && mark < 20 ? " ".repeat(mark + 2) : "";
    int max = ansi ? Math.max(20, width - 1) : Integer.MAX_VALUE;
    StringBuilder out = new StringBuilder();
    String[] paragraphs = text.split("\n", -1);
    for (int p = 0; p < paragraphs.length; p++) {
      StringBuilder line = new StringBuilder(p == 0 ? "" : indent);
      boolean empty = true;
      for (String word : paragraphs[p].split(" ")) {
        if (!empty && line.length() + 1 + word.length() > max) {
          out.append(line).append('\n');
          line = new StringBuilder(indent);
          empty = true;
        }
        if (!empty) {
          line.append(' ');
        }
        line.append(word);
        empty = false;
      }
      out.append(line);
      if (p < paragraphs.length - 1) {
        out.append('\n');
      }
    }
    return out.toString();
  }

  /**
   * The page's address in lines of at most {@code columns}: one line with its words when it fits, else the words
   * and then the address alone, cut into lines only if even that is wider (never shortened: it holds the token).
   */
  static List<String> webLines(String url, int columns) {
    if (WEB.length() + url.length() <= columns) {
      return List.of(WEB + url);
    }
    List<String> lines = new ArrayList<>();
    lines.add(WEB.strip());
    for (int i = 0; i < url.length(); i += Math.max(1, columns)) {
      lines.add(url.substring(i, Math.min(url.length(), i + Math.max(1, columns))));
    }
    return lines;
  }

  /** The end of {@code s} that fits in {@code columns}, with "…" in front when cut. */
  static String tail(String s, int columns) {
    if (s.length() <= columns) {
      return s;
    }
    int head = s.indexOf('▸');
    String prefix = head >= 0 && head < 20 ? s.substring(0, head + 2) : "";
    int keep = Math.max(1, columns - prefix.length() - 1);
    return prefix + "…" + s.substring(s.length() - keep);
  }

  private static String seconds(long nanos) {
    long tenths = nanos / 100_000_000L;
    return (tenths / 10) + "." + (tenths % 10) + "s";
  }

  /** The conversation state in words. */
  static String label(ConversationState s) {
    switch (s) {
      case IDLE:
        return "idle";
      case PROCESSING_USER_MESSAGE:
        return "reading your message";
      case AWAITING_LLM_RESPONSE:
        return "awaiting model";
      case PROCESSING_LLM_RESPONSE:
        return "processing the model's response";
      case AWAITING_TOOL_APPROVAL:
        return "awaiting your approval";
      case EXECUTING_TOOLS:
        return "executing tools";
      case PROCESSING_TOOL_RESULTS:
        return "processing tool results";
      case HANDLING_TOOL_ERROR:
        return "handling invalid tool calls";
      case GENERATING_RESPONSE:
        return "preparing the next request";
      case TRANSIENT_FAILURE:
        return "retrying the model";
      case FAILED:
        return "failed";
      default:
        return s.wireName();
    }
  }
}
