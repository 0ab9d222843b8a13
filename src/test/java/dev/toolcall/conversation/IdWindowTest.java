package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link IdWindow} against a {@link LinkedHashSet} that lets its oldest id go past the limit: the same answers to
 * every add and contains, over random sequences with many colliding and repeated ids, small limits and large.
 */
class IdWindowTest {

  @Test
  void itAnswersAsABoundedInsertionOrderedSetDoes() {
    for (long seed = 0; seed < 300; seed++) {
      Random rnd = new Random(seed);
      int limit = 1 + rnd.nextInt(seed % 3 == 0 ? 5 : 200);
      int ids = 1 + rnd.nextInt(3 * limit + 10);
      IdWindow w = new IdWindow(limit);
      LinkedHashSet<String> model = new LinkedHashSet<>();
      for (int op = 0; op < 2_000; op++) {
        String id = "perm-" + rnd.nextInt(ids);
        if (rnd.nextInt(3) == 0) {
          assertThat(w.contains(id)).as("seed %d op %d contains %s", seed, op, id).isEqualTo(model.contains(id));
          continue;
        }
        boolean added = model.add(id);
        if (added && model.size() > limit) {
          Iterator<String> oldest = model.iterator();
          oldest.next();
          oldest.remove();
        }
        assertThat(w.add(id)).as("seed %d op %d add %s", seed, op, id).isEqualTo(added);
        assertThat(w.size()).isEqualTo(model.size());
      }
      for (int i = 0; i < ids; i++) {
        assertThat(w.contains("perm-" + i)).as("seed %d, at the end: %s", seed, i).isEqualTo(model.contains("perm-" + i));
      }
    }
  }

  @Test
  void idsWhoseHashesCollideAreKeptAndLetGoInOrder() {
    IdWindow w = new IdWindow(3);
    // "Aa" and "BB" have the same hash code, as do "AaAa", "BBBB", "AaBB" and "BBAa"
    for (String id : new String[] {"Aa", "BB", "AaAa", "BBBB"}) {
      assertThat(w.add(id)).isTrue();
    }
    assertThat(w.contains("Aa")).as("the oldest was let go").isFalse();
    assertThat(w.contains("BB")).isTrue();
    assertThat(w.contains("AaAa")).isTrue();
    assertThat(w.contains("BBBB")).isTrue();
    assertThat(w.add("BB")).as("kept already").isFalse();
    assertThatThrownBy(() -> new IdWindow(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit");
  }
}
