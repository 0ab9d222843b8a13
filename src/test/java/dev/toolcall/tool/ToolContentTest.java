package dev.toolcall.tool;

import dev.toolcall.ToolContent;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The sizes the placeholders of binary parts show, for well-formed and broken base64 text. */
class ToolContentTest {

  @Test
  void paddingAloneIsZeroBytesNeverNegative() {
    assertThat(ToolContent.image("image/png", "==").modelText()).isEqualTo("[image: image/png, 0 bytes]");
    assertThat(new ToolContent.Audio("audio/wav", "=").sizeBytes()).isZero();
    assertThat(ToolContent.Resource.ofBlob("file:///x", null, "===").modelText())
        .isEqualTo("[resource: file:///x, 0 bytes]");
    for (String s : new String[] {"", "=", "==", "===", "====", "A", "A=", "A==", "A===", "AA=", "AAA==", "=A"}) {
      assertThat(ToolContent.decodedSize(s)).as("decoded size of '%s'", s).isNotNegative();
    }
  }

  @Test
  void everyPaddingCaseOfWellFormedTextIsExact() {
    assertThat(ToolContent.decodedSize("")).isZero();
    assertThat(ToolContent.decodedSize("AA==")).isEqualTo(1);
    assertThat(ToolContent.decodedSize("AAA=")).isEqualTo(2);
    assertThat(ToolContent.decodedSize("AAAA")).isEqualTo(3);
    assertThat(ToolContent.decodedSize("AA")).as("unpadded").isEqualTo(1);
    assertThat(ToolContent.decodedSize("AAA")).as("unpadded").isEqualTo(2);
    assertThat(new ToolContent.ResourceLink("file:///x", "", Optional.empty()).modelText())
        .isEqualTo("[resource link: file:///x]");
  }
}
