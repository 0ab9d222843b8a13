package dev.toolcall.internal;

/**
 * What the library's embedded servers ({@code ApprovalServer}, {@code A2aServer}) on the JDK's
 * {@code com.sun.net.httpserver} need before that server is first used. Not API.
 */
public final class HttpServers {

  private HttpServers() {}

  /**
   * Turns Nagle's algorithm off for the sockets the JDK's HTTP server accepts ({@code sun.net.httpserver.nodelay}),
   * unless the application chose a value itself. Without it a small write (an SSE event, a short answer) waits for the
   * client's delayed acknowledgement, about 40 ms. The JDK reads the property once, when its server is first used, so
   * this takes effect only if it runs before that; idempotent.
   */
  public static void noDelay() {
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }
}
