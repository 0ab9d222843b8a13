package dev.toolcall.agui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * One page's event stream of a session ({@code GET /api/sessions/{id}/stream}): {@code snapshot} first, then a
 * {@code call} frame per change of a call and a {@code turn} frame per change of the conversation, from the
 * {@link CallBoard}, and a comment line as heartbeat when nothing changed for a while. Runs on the request's thread
 * until the client leaves or the thread is interrupted.
 *
 * <p>Nothing is sent twice: a call's frame is sent only when its version is newer than the one last sent to this page,
 * or the same version drawn differently (the model's text joined it; the elapsed and remaining times, which only the
 * clock changes, do not count); a {@code turn} frame only when it differs from
 * the last one sent. So a change that reaches the board twice (a local event and the store's change feed, a change
 * told twice) is one frame, and a call's frames never go back in version. Confined to its thread.
 */
final class PageStream {
  private final CallBoard board;
  private final Clock clock;
  private final long heartbeatMillis;
  /** Past this many calls noted, the ended ones are forgotten (an ended call changes no more). */
  private static final int MAX_NOTED = 1000;
  /** Of each call sent: its version, its frame's text (what the clock changes aside), whether it had ended. */
  private final Map<String, Sent> sent = new HashMap<>();
  private String lastTurn;

  PageStream(CallBoard board, Clock clock, long heartbeatMillis) {
    this.board = board;
    this.clock = clock;
    this.heartbeatMillis = heartbeatMillis;
  }

  /** Streams {@code session} to {@code sink} until the client leaves (an IOException) or the thread is interrupted. */
  void run(String session, FrameSink sink) throws IOException {
    try (CallBoard.Watcher w = board.watch(session)) {
      sink.write("retry: 1000\n\n");
      ObjectNode snap = Wire.JSON.createObjectNode();
      snap.put("session", session);
      snap.put("serverTime", clock.instant().toString());
      snap.set("calls", board.views(session));
      for (JsonNode v : snap.get("calls")) {
        fresh(v);
      }
      board.turn(session).ifPresent(t -> {
        lastTurn = Wire.text(t);
        snap.set("turn", t);
      });
      sink.write(Wire.frame("snapshot", snap));
      while (!Thread.currentThread().isInterrupted()) {
        String id = w.next(heartbeatMillis);
        if (id == null) {
          sink.write(": ping\n\n");
          continue;
        }
        if (id.equals(CallBoard.TURN)) {
          ObjectNode t = board.turn(session).orElse(null);
          if (t != null && !Wire.text(t).equals(lastTurn)) {
            lastTurn = Wire.text(t);
            t.put("serverTime", clock.instant().toString());
            sink.write(Wire.frame("turn", t));
          }
          continue;
        }
        ObjectNode v = board.view(session, id).orElse(null);
        if (v != null && fresh(v)) {
          v.put("serverTime", clock.instant().toString());
          sink.write(Wire.frame("call", v));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Whether view {@code v} is news to this page (a newer version of its call, or the same version drawn otherwise);
   * if so it is noted as sent.
   */
  private boolean fresh(JsonNode v) {
    String callId = v.path("callId").asText();
    int version = v.path("version").asInt();
    String text = Wire.text(drawn(v));
    Sent last = sent.get(callId);
    if (last != null && (version < last.version() || version == last.version() && text.equals(last.text()))) {
      return false;
    }
    if (sent.size() >= MAX_NOTED) {
      sent.values().removeIf(Sent::ended);
    }
    sent.put(callId, new Sent(version, text, v.path("terminal").asBoolean()));
    return true;
  }

  /** {@code v} without what only the clock changes (a frame drawn again later differs in those alone). */
  private static JsonNode drawn(JsonNode v) {
    ObjectNode n = ((ObjectNode) v).deepCopy();
    n.remove("elapsedMillis");
    if (n.get("countdown") instanceof ObjectNode c) {
      c.remove("remainingMillis");
    }
    return n;
  }

  private record Sent(int version, String text, boolean ended) {}
}
