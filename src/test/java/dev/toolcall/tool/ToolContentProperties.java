package dev.toolcall.tool;

import dev.toolcall.ToolContent;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.Size;

/** The size a binary part reports is the size of the bytes it carries, however they were encoded. */
class ToolContentProperties {

  /**
   * For any byte array, the decoded size computed from its base64 text (standard or URL-safe alphabet, with or
   * without padding) is exactly the array's length: every padding case (0, 1 or 2 {@code =}) and every unpadded
   * remainder (0, 2 or 3 characters) is counted right.
   */
  @Property(tries = 1000)
  void decodedSizeOfBase64IsTheByteCount(@ForAll @Size(max = 300) byte[] bytes) {
    assertThat(ToolContent.decodedSize(Base64.getEncoder().encodeToString(bytes))).isEqualTo(bytes.length);
    assertThat(ToolContent.decodedSize(Base64.getEncoder().withoutPadding().encodeToString(bytes)))
        .isEqualTo(bytes.length);
    assertThat(ToolContent.decodedSize(Base64.getUrlEncoder().encodeToString(bytes))).isEqualTo(bytes.length);
    assertThat(ToolContent.image("image/png", Base64.getEncoder().encodeToString(bytes)).sizeBytes())
        .isEqualTo(bytes.length);
  }

  /**
   * For any text at all (random text, and text of base64 letters and padding in any order, which is mostly broken
   * base64), the decoded size is never negative and never above 3/4 of the text's length.
   */
  @Property(tries = 1000)
  void decodedSizeOfAnyTextIsBounded(@ForAll String text, @ForAll @Chars({'A', '=', '/'}) String padded) {
    assertThat(ToolContent.decodedSize(text)).isBetween(0L, (long) text.length() * 3 / 4);
    assertThat(ToolContent.decodedSize(padded)).isBetween(0L, (long) padded.length() * 3 / 4);
  }
}
