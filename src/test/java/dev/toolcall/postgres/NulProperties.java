package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Issue 26, item 5: what the store writes for PostgreSQL, which cannot hold U+0000, reads back exactly. Invariants:
 * for any string, the escaped form holds no NUL and unescapes to the string; a string with neither NUL nor U+FFFF is
 * written as it is; and a JSON document with such strings in its keys and values round-trips to an equal document.
 */
class NulProperties {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Provide
  Arbitrary<String> hostile() {
    return Arbitraries.strings().withChars('\0', '\uFFFF', '0', 'a', '\\', '"', 'u')
        .withCharRange('\u0001', '\u007f').ofMaxLength(40);
  }

  @Property(tries = 500)
  void escapeRoundTripsAndLeavesNoNul(@ForAll("hostile") String s) {
    String written = Nul.escape(s);
    assertThat(written).doesNotContain("\0");
    assertThat(Nul.unescape(written)).isEqualTo(s);
    if (s.indexOf('\0') < 0 && s.indexOf('\uFFFF') < 0) {
      assertThat(written).isSameAs(s);
    }
  }

  @Property(tries = 300)
  void aDocumentRoundTrips(@ForAll("hostile") String key, @ForAll("hostile") String value) throws Exception {
    ObjectNode doc = JSON.createObjectNode();
    doc.put(key, value);
    doc.putArray("list").add(value).add(1.25);
    String text = JSON.writeValueAsString(doc);
    String written = Nul.escapeJson(text);
    assertThat(written).doesNotContain("\\u0000").doesNotContain("\0");
    assertThat(JSON.readTree(Nul.unescapeJson(written))).isEqualTo(doc);
  }
}
