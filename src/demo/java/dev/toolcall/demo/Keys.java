package dev.toolcall.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Keys from an input stream: a daemon thread reads the bytes, {@link #next} decodes them.
 *
 * <p>The Esc key and the escape sequences of other keys (arrows: {@code ESC [ A}; function keys: {@code ESC O P},
 * {@code ESC [ 1 5 ~}) both start with the byte ESC. A terminal sends a sequence's bytes together (one read returns
 * them all), so an ESC followed by {@code [} or {@code O} in the same read, or within {@link #ESC_WAIT}, starts a
 * sequence ({@link Key.Sequence}, which the demo ignores), and an ESC followed by nothing in that time is the Esc
 * key. The same decoding applies to bytes from a pipe or a test, where a lone ESC byte is the Esc key.
 *
 * <p>Thread-safe for one consumer: {@link #next} is called by one thread at a time.
 */
final class Keys {

  /** How long after an ESC the rest of an escape sequence may take to arrive. */
  static final Duration ESC_WAIT = Duration.ofMillis(60);
  private static final int EOF = -1;

  /** A decoded key. */
  sealed interface Key permits Key.Char, Key.Special, Key.Sequence {

    /** A printable character (space included). */
    record Char(int codePoint) implements Key {
      @Override
      public String toString() {
        return new String(Character.toChars(codePoint));
      }
    }

    /** A sequence the demo has no use for (arrows, function keys, Alt+key, other control characters). */
    record Sequence(String bytes) implements Key {}

    /** The keys the demo acts on. */
    enum Special implements Key {
      ENTER, BACKSPACE, ESCAPE, INTERRUPT, END_OF_INPUT
    }
  }

  private static final byte[] END = new byte[0];

  /** What each read returned (a terminal sends a key's whole sequence in one), then {@link #END}. */
  private final BlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
  // the consumer's
  private byte[] chunk = END;
  private int pos;
  private int pushedBack = Integer.MIN_VALUE;
  private boolean ended;

  /** Starts reading {@code in} on a daemon thread. */
  Keys(InputStream in) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[256];
      try {
        int n;
        while ((n = in.read(buf)) != EOF) {
          if (n > 0) {
            chunks.add(Arrays.copyOf(buf, n));
          }
        }
      } catch (IOException e) {
        // the input is gone: same as its end
      }
      chunks.add(END);
    }, "demo-keys");
    t.setDaemon(true);
    t.start();
  }

  /**
   * The next key, waiting up to {@code timeout}; null when none came in time. After the input ended, every call
   * returns {@link Key.Special#END_OF_INPUT}.
   */
  Key next(Duration timeout) throws InterruptedException {
    int b = take(timeout);
    if (b == Integer.MIN_VALUE) {
      return null;
    }
    if (b == EOF) {
      return Key.Special.END_OF_INPUT;
    }
    switch (b) {
      case 0x1b:
        return escape();
      case '\r': { // a CR LF pair (from a pipe) is one Enter
        int n = take(ESC_WAIT);
        if (n != '\n' && n != Integer.MIN_VALUE) {
          pushedBack = n;
        }
        return Key.Special.ENTER;
      }
      case '\n':
        return Key.Special.ENTER;
      case 0x7f:
      case 0x08:
        return Key.Special.BACKSPACE;
      case 0x03:
        return Key.Special.INTERRUPT;
      default:
        break;
    }
    if (b < 0x20) {
      return new Key.Sequence(String.valueOf((char) b));
    }
    if (b < 0x80) {
      return new Key.Char(b);
    }
    return utf8(b);
  }

  /** After an ESC: the Esc key, or a whole escape sequence. */
  private Key escape() throws InterruptedException {
    int n = take(ESC_WAIT);
    if (n == Integer.MIN_VALUE) {
      return Key.Special.ESCAPE;
    }
    if (n == EOF || n < 0x20) {
      pushedBack = n; // the end of input, a second Esc, or Enter (Esc typed in line mode) is the next key
      return Key.Special.ESCAPE;
    }
    StringBuilder seq = new StringBuilder().append((char) 0x1b).append((char) n);
    if (n == '[') { // CSI: parameter and intermediate bytes, then a final byte 0x40-0x7e
      int c;
      do {
        c = take(ESC_WAIT);
        if (c == Integer.MIN_VALUE || c == EOF) {
          pushedBack = c == EOF ? EOF : Integer.MIN_VALUE;
          break;
        }
        seq.append((char) c);
      } while (c < 0x40 || c > 0x7e);
    } else if (n == 'O') { // SS3: one more byte
      int c = take(ESC_WAIT);
      if (c == EOF) {
        pushedBack = EOF;
      } else if (c != Integer.MIN_VALUE) {
        seq.append((char) c);
      }
    }
    return new Key.Sequence(seq.toString()); // also Alt+key: ESC and the key
  }

  private Key utf8(int lead) throws InterruptedException {
    int more = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
    byte[] buf = new byte[more + 1];
    buf[0] = (byte) lead;
    for (int i = 1; i <= more; i++) {
      int c = take(ESC_WAIT);
      if (c == Integer.MIN_VALUE || c == EOF || (c & 0xc0) != 0x80) {
        if (c == EOF) {
          pushedBack = EOF;
        }
        return new Key.Sequence("?");
      }
      buf[i] = (byte) c;
    }
    String s = new String(buf, StandardCharsets.UTF_8);
    return new Key.Char(s.codePointAt(0));
  }

  /** The next byte, EOF, or MIN_VALUE when none came in time. */
  private int take(Duration timeout) throws InterruptedException {
    if (pushedBack != Integer.MIN_VALUE) {
      int b = pushedBack;
      pushedBack = Integer.MIN_VALUE;
      return b;
    }
    if (ended) {
      return EOF;
    }
    if (pos < chunk.length) {
      return chunk[pos++] & 0xff;
    }
    byte[] c = chunks.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    if (c == null) {
      return Integer.MIN_VALUE;
    }
    if (c == END) {
      ended = true;
      return EOF;
    }
    chunk = c;
    pos = 1;
    return c[0] & 0xff;
  }
}
