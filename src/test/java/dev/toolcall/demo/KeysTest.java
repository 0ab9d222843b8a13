package dev.toolcall.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.demo.Keys.Key;
import java.io.ByteArrayInputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How bytes become keys; above all, that the Esc key is never confused with the escape sequence of another key. */
class KeysTest {

  static final Duration WAIT = Duration.ofSeconds(5);

  static List<Key> decode(String input) throws InterruptedException {
    Keys keys = new Keys(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
    List<Key> out = new ArrayList<>();
    Key k;
    while ((k = keys.next(WAIT)) != Key.Special.END_OF_INPUT) {
      assertThat(k).as("a key arrives: the input is all there").isNotNull();
      out.add(k);
    }
    assertThat(keys.next(WAIT)).as("the end repeats").isEqualTo(Key.Special.END_OF_INPUT);
    return out;
  }

  @Test
  void arrowAndFunctionKeysAreSequencesNotEsc() throws Exception {
    assertThat(decode("\u001b[A\u001b[B\u001bOP\u001b[15~x")).containsExactly(new Key.Sequence("\u001b[A"),
        new Key.Sequence("\u001b[B"), new Key.Sequence("\u001bOP"), new Key.Sequence("\u001b[15~"),
        new Key.Char('x'));
  }

  @Test
  void aLoneEscIsTheEscKeyAlsoTwiceInARowAndAtTheEnd() throws Exception {
    assertThat(decode("\u001b\u001b")).containsExactly(Key.Special.ESCAPE, Key.Special.ESCAPE);
    assertThat(decode("o\u001b")).containsExactly(new Key.Char('o'), Key.Special.ESCAPE);
    assertThat(decode("\u001b\n")).as("Esc, then Enter in line mode").containsExactly(Key.Special.ESCAPE,
        Key.Special.ENTER);
    assertThat(decode("\u001bx")).as("Alt+x").containsExactly(new Key.Sequence("\u001bx"));
  }

  @Test
  void anEscWithNothingAfterItWhileTheInputStaysOpenIsTheEscKey() throws Exception {
    PipedOutputStream typing = new PipedOutputStream();
    Keys keys = new Keys(new PipedInputStream(typing));
    typing.write(0x1b);
    typing.flush();
    assertThat(keys.next(WAIT)).as("decided after the short wait for a sequence, input still open")
        .isEqualTo(Key.Special.ESCAPE);
    typing.write("[A".getBytes(StandardCharsets.US_ASCII));
    typing.close();
    assertThat(keys.next(WAIT)).isEqualTo(new Key.Char('['));
    assertThat(keys.next(WAIT)).isEqualTo(new Key.Char('A'));
    assertThat(keys.next(WAIT)).isEqualTo(Key.Special.END_OF_INPUT);
  }

  @Test
  void editingKeysAndText() throws Exception {
    assertThat(decode("é \r\n\n\r\u007f\b\u0003\u0001")).as("CR LF is one Enter").containsExactly(
        new Key.Char('é'), new Key.Char(' '), Key.Special.ENTER, Key.Special.ENTER, Key.Special.ENTER,
        Key.Special.BACKSPACE, Key.Special.BACKSPACE, Key.Special.INTERRUPT, new Key.Sequence("\u0001"));
  }

  @Test
  void nothingTypedIsNull() throws Exception {
    PipedOutputStream typing = new PipedOutputStream();
    Keys keys = new Keys(new PipedInputStream(typing));
    assertThat(keys.next(Duration.ofMillis(1))).isNull();
    typing.close();
  }
}
