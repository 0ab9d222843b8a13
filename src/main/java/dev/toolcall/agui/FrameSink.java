package dev.toolcall.agui;

import java.io.IOException;

/**
 * Where an endpoint writes its Server-Sent-Event frames: a servlet's output stream, an {@code SseEmitter}, a
 * WebFlux sink, or the embedded server's response body. Each call is one complete frame ({@code data: ...\n\n}),
 * already encoded; the sink writes it and flushes. Called by one thread at a time, in order, so an implementation
 * needs no locking of its own; it should not block for long (a slow client holds the run's thread).
 */
@FunctionalInterface
public interface FrameSink {

  /**
   * Writes and flushes one frame.
   *
   * @param frame the frame's text, ending with a blank line
   * @throws IOException when the client is gone: the endpoint stops writing to this sink and throws it on from
   *     {@link AguiEndpoint#run}; a {@link RuntimeException} goes the same way
   */
  void write(String frame) throws IOException;
}
