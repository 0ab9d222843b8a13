package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The figures of the multi-instance path side by side: the same client load ({@code src/test/node/cluster-client.cjs},
 * {@code toolcall.cluster.turns} conversations, 100 by default, {@code toolcall.cluster.concurrency} at a time, 6 by
 * default) on each setup that {@code toolcall.cluster.setups} names (all by default, in this order):
 * <ul>
 *   <li>{@code three-kills}: three instances on PostgreSQL behind nginx, {@code toolcall.cluster.kills} of them (5 by
 *       default) killed with {@code kill -9} one after another while each holds a conversation mid-step, each started
 *       again under a new name: the time from each kill to its turns going on elsewhere;</li>
 *   <li>{@code three}: three instances on PostgreSQL behind nginx, nothing killed;</li>
 *   <li>{@code one}: one instance on PostgreSQL behind nginx;</li>
 *   <li>{@code one-direct}: one instance on PostgreSQL, the client straight to it;</li>
 *   <li>{@code memory}: one instance on the in-memory stores behind nginx;</li>
 *   <li>{@code memory-direct}: one instance on the in-memory stores, the client straight to it.</li>
 * </ul>
 * Each setup's figures go to {@code target/cluster-figures-<setup>.json}, a summary of all to
 * {@code target/cluster-figures-comparison.json}. Every setup is checked as {@link ClusterTest} checks its run (no tool
 * twice, the model told the truth, nothing left open, what a killed instance held went on elsewhere); no figure is
 * asserted. Command: docs/performance.md, "Several instances behind nginx".
 */
@Tag("stress")
class ClusterFiguresStressTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theSameLoadOnThreeInstancesOneInstanceAndTheInMemoryPath() throws Exception {
    int turns = Integer.getInteger("toolcall.cluster.turns", 100);
    int concurrency = Integer.getInteger("toolcall.cluster.concurrency", 6);
    int kills = Integer.getInteger("toolcall.cluster.kills", 5);
    Map<String, ClusterHarness.Setup> known = new LinkedHashMap<>();
    for (ClusterHarness.Setup s : List.of(
        ClusterHarness.Setup.of("three-kills", 3).kills(kills, true),
        ClusterHarness.Setup.of("three", 3),
        ClusterHarness.Setup.of("one", 1),
        ClusterHarness.Setup.of("one-direct", 1).direct(),
        ClusterHarness.Setup.of("memory", 1).inMemory(),
        ClusterHarness.Setup.of("memory-direct", 1).inMemory().direct())) {
      known.put(s.name(), s.load(turns, concurrency));
    }
    List<ClusterHarness.Setup> chosen = new ArrayList<>();
    for (String name : System.getProperty("toolcall.cluster.setups", String.join(",", known.keySet())).split(",")) {
      ClusterHarness.Setup s = known.get(name.strip());
      if (s == null) {
        throw new IllegalArgumentException("toolcall.cluster.setups: '" + name.strip() + "' is none of "
            + known.keySet());
      }
      chosen.add(s);
    }

    ArrayNode summary = JSON.createArrayNode();
    for (ClusterHarness.Setup setup : chosen) {
      ObjectNode f;
      try (ClusterHarness cluster = ClusterHarness.start(setup)) {
        ClusterHarness.ClientRun run = cluster.runClient();
        assertThat(run.exitValue()).as(setup.name() + ": " + run.tail()).isZero();
        assertThat(run.output()).contains(" passed, 0 failed");
        cluster.check(0);
        f = cluster.figures(run);
      }
      ClusterHarness.write(f, Path.of("target/cluster-figures-" + setup.name() + ".json"));
      ObjectNode row = summary.addObject();
      row.put("setup", setup.name());
      row.set("loadAverage", f.get("loadAverage"));
      row.set("turnsPerSecond", f.get("turnsPerSecond"));
      row.set("decisionToResultMs", f.get("decisionToResultMs"));
      row.set("decisionToToolStartMs", f.get("decisionToToolStartMs"));
      row.set("database", f.get("database"));
      row.set("retries", f.get("retries"));
      row.set("killToTakeoverMs", f.get("killToTakeoverMs"));
    }
    ObjectNode all = JSON.createObjectNode();
    all.put("turns", turns);
    all.put("concurrency", concurrency);
    all.set("setups", summary);
    ClusterHarness.write(all, Path.of("target/cluster-figures-comparison.json"));
  }
}
