package dev.toolcall.acp;

import java.time.Duration;

/**
 * The agent an editor starts, for the official client's test ({@code src/test/node/acp-client.mjs}): {@link AcpShell}'s
 * agent served on stdin and stdout, its deploy requests timing out after the milliseconds in the first argument
 * (default 1500). Each command a tool ran is printed to stderr as {@code ran: <command>}, for the Java test to check.
 */
public final class AcpTestAgent {
  private AcpTestAgent() {}

  public static void main(String[] args) throws Exception {
    Duration deadline = Duration.ofMillis(args.length > 0 ? Long.parseLong(args[0]) : 1500);
    try (AcpShell shell = new AcpShell(deadline, dev.toolcall.conversation.ConversationStore.inMemory(),
        c -> System.err.println("ran: " + c))) {
      shell.acp.serve(System.in, System.out);
    }
    System.exit(0);
  }
}
