package dev.toolcall.demo;

import dev.toolcall.Outcome;
import dev.toolcall.StateTransition;
import dev.toolcall.Ticker;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.mcp.McpToolSource;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.presentation.CallTree;
import dev.toolcall.presentation.LiveDisplay;
import dev.toolcall.presentation.Presenter;
import dev.toolcall.presentation.TerminalRenderer;
import dev.toolcall.presentation.Theme;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The terminal demo: one agent turn on {@link Agent}, the library's turn loop, with a scripted streaming model
 * ({@link ScriptedModel}) and simulated tools ({@link DemoTools}). Over five model round trips it shows parallel
 * read-only calls with live output, a flaky call that is retried, a hallucinated tool name answered with "did you
 * mean", a shell command you approve at the prompt (once, for the session, always, with an edited command, or deny
 * with a reason for the model), a deploy whose approval times out, and a sub-agent whose calls are nested under it.
 * Then the model's final answer, and a timeline of every call's states.
 *
 * <p>Run: {@code mvn -q -P demo compile exec:java}; options (in {@code -Dexec.args="..."}): {@code --auto} answers
 * the prompt by itself, {@code --theme compact} uses the compact icons, {@code --trace} prints the turn's
 * OpenTelemetry span tree at the end, {@code --mcp} starts an MCP server ({@link DemoMcpServer}, a child JVM) whose
 * tools join the turn in the same timeline, {@code --web} starts the approval page ({@code ApprovalServer}) and shows
 * its URL (on a terminal in the live display's footer, so no repaint draws over it): the approvals are answered in
 * the browser, not at the prompt; {@code --acp} serves the agent to an editor over the Agent Client Protocol on stdio
 * ({@link DemoAcp}) instead of running the terminal demo. Esc or Ctrl-C cancels the turn: every call
 * still ends in a terminal state and the timeline is printed.
 *
 * <p>On a terminal, keys are read one at a time ({@link Tty}) and the list of calls, the streaming model text, the
 * status line and the prompt are repainted in place; otherwise (a pipe, {@code NO_COLOR}, the tests) the output is
 * plain appended lines without escape codes and the answers are read a line at a time (there Esc takes effect when
 * its line is sent).
 */
public final class Demo {

  static final String USER_MESSAGE =
      "CI is red on shop-service. Find out why, run the tests, and deploy if they pass.";
  private static final String ESC = "\u001b";
  private static final String HIDE_CURSOR = ESC + "[?25l";
  private static final String SHOW_CURSOR = ESC + "[?25h";

  private Demo() {}

  /**
   * What a run produced (for the tests).
   *
   * @param turn how the turn ended
   * @param calls the last snapshot of every call, nested ones included, in tree order
   */
  /** How a run ended: the turn's result, every call's last snapshot, and every event of the bus in arrival order. */
  record Run(TurnResult turn, List<ToolCallSnapshot> calls, List<Event> events) {}

  /**
   * The command line.
   *
   * @param auto answer the prompt from a script
   * @param theme the icon theme
   * @param pace how fast the model and the tools play
   * @param deployTimeout the deploy's approval deadline
   * @param trace print the turn's span tree
   * @param mcp start the demo's MCP server and attach its tools
   * @param web answer the approvals in a browser: start the approval page and print its URL
   */
  record Options(boolean auto, Theme theme, Pace pace, Duration deployTimeout, boolean trace, boolean mcp,
      boolean web) {
    Options(boolean auto, Theme theme, Pace pace, Duration deployTimeout) {
      this(auto, theme, pace, deployTimeout, false, false, false);
    }

    Options(boolean auto, Theme theme, Pace pace, Duration deployTimeout, boolean trace, boolean mcp) {
      this(auto, theme, pace, deployTimeout, trace, mcp, false);
    }

    Options(boolean auto, Theme theme, Pace pace, Duration deployTimeout, boolean trace) {
      this(auto, theme, pace, deployTimeout, trace, false, false);
    }

    static Options parse(String... args) {
      boolean auto = false;
      boolean trace = false;
      boolean mcp = false;
      boolean web = false;
      Theme theme = Theme.emoji();
      Pace pace = Pace.NORMAL;
      Duration deploy = null;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--auto" -> auto = true;
          case "--trace" -> trace = true;
          case "--mcp" -> mcp = true;
          case "--web" -> web = true;
          case "--theme" -> theme = Theme.named(value(args, ++i, "--theme"));
          case "--pace" -> pace = new Pace(Double.parseDouble(value(args, ++i, "--pace")));
          case "--deploy-timeout-ms" -> deploy = Duration.ofMillis(Long.parseLong(value(args, ++i, args[i - 1])));
          default -> throw new IllegalArgumentException("unknown argument '" + args[i]
              + "'; expected --auto, --trace, --mcp, --web, --acp, --theme emoji|compact, --pace FACTOR,"
              + " --deploy-timeout-ms MS (or --a2a first)");
        }
      }
      return new Options(auto, theme, pace, deploy != null ? deploy : Duration.ofMillis(Math.max(300,
          pace.of(8_000).toMillis())), trace, mcp, web);
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }
  }

  /**
   * Where the demo talks to.
   *
   * @param in the keys
   * @param out the screen
   * @param ansi draw with escape codes (repaint in place)
   * @param rawKeys keys arrive one at a time, unechoed (else a line at a time)
   * @param columns the terminal's width, or 0 when unknown
   * @param rows the terminal's height, or 0 when unknown
   */
  record Io(InputStream in, PrintStream out, boolean ansi, boolean rawKeys, int columns, int rows) {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--a2a")) { // serve the agent over A2A instead (DemoA2a)
      DemoA2a.serve(args, System.in, System.out);
      return;
    }
    Options options;
    boolean acp = java.util.Arrays.asList(args).contains("--acp");
    try {
      options = Options.parse(java.util.Arrays.stream(args).filter(a -> !a.equals("--acp")).toArray(String[]::new));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    if (acp) { // an ACP agent on stdio (DemoAcp): an editor starts the demo and talks to it
      DemoAcp.serve(options, System.in, System.out);
      System.exit(0);
      return;
    }
    boolean ansi = TerminalRenderer.detectAnsi();
    // keys one at a time only where the screen is drawn in place: with NO_COLOR or TERM=dumb the output is plain
    // lines, and answers are typed a line at a time, echoed by the terminal (Esc then Enter cancels)
    Tty tty = ansi ? Tty.open() : Tty.lineMode();
    int[] size = Tty.size();
    Io io = new Io(System.in, System.out, ansi, tty.raw(), size == null ? 0 : size[1], size == null ? 0 : size[0]);
    try {
      run(options, io, tty::restore);
    } finally {
      tty.restore();
    }
    System.exit(0);
  }

  /** Runs the demo with plain output and line-mode input (for the tests). */
  static Run run(String[] args, InputStream in, PrintStream out) throws Exception {
    return run(Options.parse(args), new Io(in, out, false, false, 0, 0), () -> {});
  }

  /**
   * Runs one turn and prints its answer and timeline.
   *
   * @param restoreTerminal puts the terminal back; the Ctrl-C hook calls it once the timeline is printed
   */
  @SuppressWarnings("try") // the MCP attachment is held by the try; the display is closed early, before the summary
  static Run run(Options o, Io io, Runnable restoreTerminal) throws Exception {
    PrintStream out = io.out();
    Ticker ticker = Ticker.system();
    long startTick = ticker.read();
    AtomicReference<ToolCallRuntime> runtimeRef = new AtomicReference<>();
    ScriptedModel model = ScriptedModel.agent(o.pace());
    ScriptedModel subModel = ScriptedModel.subAgent(o.pace());
    DemoTools tools = new DemoTools(o.pace(), o.deployTimeout(), runtimeRef::get, ModelClient.streaming(subModel));
    int width = io.columns() >= 20 ? Math.min(io.columns(), 1000) : 100;
    Ui ui = new Ui(out, io.ansi(), io.rawKeys(), width);
    ExecutorService uiEvents = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "demo-ui-events");
      t.setDaemon(true);
      return t;
    });
    Map<String, ToolCallSnapshot> calls = new ConcurrentHashMap<>();
    List<Event> events = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    Keys keys = new Keys(io.in());
    CountDownLatch printed = new CountDownLatch(1);
    AtomicReference<String> cancelledBy = new AtomicReference<>();
    Thread hook = null;
    ApprovalServer web = null;
    TerminalRenderer.Builder rb = TerminalRenderer.builder()
        .presenter(Presenter.builder().theme(o.theme()).ticker(ticker).outputTailLines(3).build())
        .ansi(io.ansi()).width(width).resultLines(1);
    if (io.rows() >= 3) {
      rb.height(Math.min(io.rows(), 1000));
    }
    TerminalRenderer renderer = rb.build();

    Trace trace = o.trace() ? new Trace() : null;
    ToolCallRuntime.Builder runtimeBuilder = ToolCallRuntime.builder().ticker(ticker).tools(tools.all())
        .permissions(p -> p.defaultTimeout(Duration.ofMinutes(2)));
    if (trace != null) {
      runtimeBuilder.instrumentation(trace.telemetry());
    }
    try (trace; ToolCallRuntime runtime = runtimeBuilder.build();
        AutoCloseable mcp = o.mcp() ? attachMcp(runtime) : () -> { };
        LiveDisplay live = renderer.live(out)) {
      runtimeRef.set(runtime);
      runtime.events().subscribe(new EventListener() { // inline: up to date when a batch completes
        @Override
        public void onEvent(Event e) {
          events.add(e);
          if (e instanceof ToolCallEvent c) {
            calls.merge(c.callId(), c.snapshot(), (a, b) -> b.version() > a.version() ? b : a);
          }
        }
      });
      runtime.events().subscribe(new EventListener() {
        @Override
        public void onConversationEvent(ConversationEvent e) {
          ui.onConversation(e);
        }
      }, uiEvents);
      Agent agent = Agent.builder(ModelClient.streaming(model), runtime).conversationId("demo")
          .onDelta(ui::onDelta).build();
      if (io.ansi()) {
        out.print(HIDE_CURSOR);
      }
      out.println(ui.wrap("you ▸ " + USER_MESSAGE));
      out.flush();
      live.attach(runtime.events());
      ui.attach(live);

      hook = new Thread(() -> { // Ctrl-C (SIGINT): the main thread prints the answer and the timeline, then we go
        if (agent.isResponding() && cancelledBy.compareAndSet(null, "Ctrl-C")) {
          ui.note("· Ctrl-C: cancelling the turn");
        }
        agent.abort();
        try {
          printed.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        restoreTerminal.run();
        if (io.ansi()) {
          out.print(SHOW_CURSOR);
          out.flush();
        }
      }, "demo-ctrl-c");
      Runtime.getRuntime().addShutdownHook(hook);

      if (o.web()) {
        web = ApprovalServer.builder(runtime).presenter(Presenter.builder().theme(o.theme()).build())
            .transcript(agent).start();
        ui.web(web.pageUrl("demo").toString());
      }
      CompletableFuture<TurnResult> turn = agent.send(USER_MESSAGE).toCompletableFuture();
      loop(o, io, turn, agent, runtime, ticker, ui, keys, cancelledBy);
      TurnResult result = turn.join();
      ui.end();
      awaitTerminal(calls, Duration.ofSeconds(5));
      live.close();

      out.println();
      if (result.ending() == TurnResult.Ending.ANSWERED) {
        out.println(ui.wrap("model ▸ " + result.text()));
      } else {
        String by = cancelledBy.get();
        out.println("Turn ended " + result.ending() + (by != null ? " (" + by + ")" : "") + ": " + result.text());
      }
      out.println();
      List<ToolCallSnapshot> all = CallTree.of(calls.values()).nodes().stream().map(CallTree.Node::snapshot)
          .toList();
      printTimeline(out, all, startTick, o.theme(), io.ansi(), width);
      if (trace != null) {
        out.println();
        out.println(bold("Trace", io.ansi()) + dim("  the turn's OpenTelemetry spans (--trace)", io.ansi()));
        out.print(Trace.tree(trace.spans()));
      }
      out.flush();
      printed.countDown();
      return new Run(result, all, List.copyOf(events));
    } finally {
      if (io.ansi()) {
        out.print(SHOW_CURSOR);
        out.flush();
      }
      printed.countDown();
      if (hook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // Ctrl-C: the hook is running
        }
      }
      if (web != null) {
        web.close();
      }
      model.close();
      subModel.close();
      uiEvents.shutdownNow();
    }
  }

  /** Starts the demo's MCP server and adds its tools to {@code runtime} under the prefix {@code repo.}. */
  private static McpToolSource attachMcp(ToolCallRuntime runtime) {
    List<String> command = DemoMcpServer.command();
    var transport = new StdioClientTransport(ServerParameters.builder(command.get(0))
        .args(command.subList(1, command.size())).build(), new JacksonMcpJsonMapper(new ObjectMapper()));
    transport.setStdErrorHandler(line -> { }); // the server's own log stays out of the demo's screen
    return McpToolSource.builder("repo", transport).trustReadOnlyHints(true).connect().attach(runtime);
  }

  /**
   * The main thread until the turn ends: prompts, keys, cancel. Esc (and a Ctrl-C byte, should one arrive) cancels
   * at once. Other keys go to the open prompt; in line mode, keys that arrive while no prompt is open wait for the
   * next one (type-ahead, so piped answers work), while on a terminal they are dropped. In {@code --auto} mode the
   * script answers and typed keys other than Esc are ignored.
   */
  private static void loop(Options o, Io io, CompletableFuture<TurnResult> turn, Agent agent,
      ToolCallRuntime runtime, Ticker ticker, Ui ui, Keys keys, AtomicReference<String> cancelledBy)
      throws InterruptedException {
    Approvals approvals = new Approvals(runtime.permissions(), ui, !io.rawKeys());
    AutoAnswers auto = o.auto() ? new AutoAnswers(o.pace()) : null;
    Deque<Keys.Key> typeAhead = new ArrayDeque<>();
    boolean inputEnded = false;
    while (!turn.isDone()) {
      if (!o.web()) { // with --web the page answers: the prompt stays closed, and keys only cancel
        approvals.poll(ticker.read());
      }
      while (approvals.isOpen() && !typeAhead.isEmpty()) {
        approvals.key(typeAhead.poll());
      }
      if (auto != null) {
        Keys.Key a = auto.next(approvals.isOpen());
        if (a != null) {
          approvals.key(a);
        }
      }
      Keys.Key k;
      if (inputEnded) {
        Thread.sleep(Approvals.pollInterval().toMillis());
        k = null;
      } else {
        k = keys.next(Approvals.pollInterval());
      }
      if (k == null) {
        continue;
      }
      if (k == Keys.Key.Special.ESCAPE || k == Keys.Key.Special.INTERRUPT) {
        String by = k == Keys.Key.Special.ESCAPE ? "Esc" : "Ctrl-C";
        if (cancelledBy.compareAndSet(null, by)) {
          ui.note("· " + by + ": cancelling the turn");
        }
        agent.abort();
        continue;
      }
      if (k == Keys.Key.Special.END_OF_INPUT) {
        inputEnded = true;
      }
      if (auto != null) {
        continue;
      }
      if (approvals.isOpen()) {
        approvals.key(k);
      } else if (!io.rawKeys()) {
        typeAhead.add(k);
      }
    }
  }

  /** Keys typed by the script in {@code --auto} mode: "o" a moment after the prompt opens. */
  static final class AutoAnswers {
    private final Pace pace;
    private long openedAt = -1;

    AutoAnswers(Pace pace) {
      this.pace = pace;
    }

    Keys.Key next(boolean promptOpen) {
      if (!promptOpen) {
        openedAt = -1;
        return null;
      }
      long now = System.nanoTime();
      if (openedAt < 0) {
        openedAt = now;
        return null;
      }
      if (now - openedAt >= pace.of(1_500).toNanos()) {
        openedAt = -1;
        return new Keys.Key.Char('o');
      }
      return null;
    }
  }

  private static void awaitTerminal(Map<String, ToolCallSnapshot> calls, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline && !calls.values().stream().allMatch(ToolCallSnapshot::isTerminal)) {
      Thread.sleep(20);
    }
  }

  /**
   * One line per call, in tree order: when it started in the turn, then each state with the time spent in it; a
   * call that did not complete gets a second line with what the model was told. On a terminal that line is cut to
   * the width.
   */
  static void printTimeline(PrintStream out, List<ToolCallSnapshot> calls, long startTick, Theme theme,
      boolean ansi, int width) {
    out.println(bold("Timeline", ansi) + dim("  start in the turn, then each state and the time spent in it", ansi));
    int nameWidth = 0;
    for (ToolCallSnapshot s : calls) {
      nameWidth = Math.max(nameWidth, depth(s, calls) * 2 + s.callId().length() + 1 + s.toolName().length());
    }
    for (ToolCallSnapshot s : calls) {
      String name = "  ".repeat(depth(s, calls)) + s.callId() + " " + s.toolName();
      String head = String.format("%6s", "+" + seconds(Duration.ofNanos(s.identity().createdTick() - startTick)))
          + " " + name + " ".repeat(nameWidth - name.length()) + "  ";
      List<String[]> parts = new ArrayList<>(); // {plain, styled}: each state with its time and arrow
      boolean started = s.toolStarted(); // a call that failed validation shows "validating", not "running"
      for (StateTransition t : s.history()) {
        String d = duration(t.timeInFrom());
        String seg = t.from() == ToolCallState.RUNNING && !started ? "validating" : t.from().wireName();
        parts.add(new String[] {seg + " " + d + " → ",
            state(t.from(), seg, theme, ansi) + " " + dim(d + " → ", ansi)});
      }
      String last = s.state().wireName() + (s.attempt() > 1 ? " (" + s.attempt() + " attempts)" : "");
      parts.add(new String[] {last, state(s.state(), theme, ansi)
          + (s.attempt() > 1 ? dim(" (" + s.attempt() + " attempts)", ansi) : "")});
      // on a terminal, a chain wider than the screen continues under itself rather than wrapping at column 0
      StringBuilder b = new StringBuilder(head);
      int col = head.length();
      for (String[] p : parts) {
        if (ansi && col + p[0].strip().length() > width - 1 && col > head.length()) {
          out.println(b);
          b = new StringBuilder(" ".repeat(head.length()));
          col = head.length();
        }
        b.append(p[1]);
        col += p[0].length();
      }
      out.println(b);
      s.outcomeIfTerminal().filter(oc -> !(oc instanceof Outcome.Completed)).ifPresent(oc -> {
        String note = " ".repeat(7 + depth(s, calls) * 2) + "└ " + oc.messageForModel().replace('\n', ' ');
        out.println(dim(ansi && note.length() > width - 1 ? note.substring(0, width - 2) + "…" : note, ansi));
      });
    }
    long done = calls.stream().filter(s -> s.state() == ToolCallState.COMPLETED).count();
    out.println(dim(calls.size() + " calls, every one in a terminal state: " + done + " completed, "
        + (calls.size() - done) + " not", ansi));
  }

  private static int depth(ToolCallSnapshot s, List<ToolCallSnapshot> all) {
    int d = 0;
    String parent = s.identity().parentCallId();
    while (parent != null && d < 10) {
      String p = parent;
      parent = all.stream().filter(x -> x.callId().equals(p)).findFirst()
          .map(x -> x.identity().parentCallId()).orElse(null);
      d++;
    }
    return d;
  }

  private static String state(ToolCallState s, Theme theme, boolean ansi) {
    return state(s, s.wireName(), theme, ansi);
  }

  private static String state(ToolCallState s, String name, Theme theme, boolean ansi) {
    return ansi ? ESC + "[" + TerminalRenderer.sgr(theme.style(s).color()) + "m" + name + ESC + "[0m" : name;
  }

  private static String bold(String s, boolean ansi) {
    return ansi ? ESC + "[1m" + s + ESC + "[0m" : s;
  }

  private static String dim(String s, boolean ansi) {
    return ansi ? ESC + "[2m" + s + ESC + "[0m" : s;
  }

  /** 350ms, 1.2s, 12s. */
  static String duration(Duration d) {
    long ms = d.toMillis();
    return ms < 1000 ? ms + "ms" : seconds(d);
  }

  private static String seconds(Duration d) {
    long tenths = Math.max(0, d.toMillis()) / 100;
    return (tenths / 10) + "." + (tenths % 10) + "s";
  }
}
