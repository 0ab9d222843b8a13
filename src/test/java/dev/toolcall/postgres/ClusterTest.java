package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Three instance processes ({@link ClusterInstance}) on one PostgreSQL database, behind nginx (round-robin, no sticky
 * sessions), driven only through nginx by the official AG-UI client under Node ({@code src/test/node/cluster-client.cjs}):
 * conversations with approvals, denials, edits and deadlines whose runs land on whichever instance nginx picks. While
 * the load runs, one instance is killed with {@code kill -9} while it holds a conversation mid-step and, later, the
 * database is unreachable for 10 seconds (its connections cut and refused by a proxy between the instances and the
 * server). Checks, from the store ({@link ClusterHarness#check}): every conversation ends with the answer its scenario
 * calls for (what the model was told is the truth); no tool ran twice, or after a denial or a deadline; nothing is left
 * open; every call event any instance's listeners saw is of a version that was stored; whatever the killed instance
 * held went on elsewhere. And a person's approval on the page, through nginx, makes a turn AG-UI suspended go on. The
 * run's figures go to {@code target/cluster-figures.json}; {@link ClusterFiguresStressTest} compares setups.
 */
class ClusterTest {

  @Test
  void threeInstancesBehindNginxLoseNothingWhenOneIsKilledAndTheDatabaseStops() throws Exception {
    int turns = Integer.getInteger("toolcall.cluster.turns", 40);
    ClusterHarness.Setup setup = ClusterHarness.Setup.of("ci", 3).kills(1, false).withOutage().load(turns, 6);
    try (ClusterHarness cluster = ClusterHarness.start(setup)) {
      ClusterHarness.ClientRun run = cluster.runClient();
      assertThat(run.exitValue()).as(run.tail()).isZero();
      assertThat(run.output()).contains(" passed, 0 failed");

      // a person on the approval page, through nginx: a turn that AG-UI suspended (on whichever instance) is listed by
      // the page served by whichever instance, and Approve makes it go on
      String page = "page-0";
      HttpClient http = HttpClient.newHttpClient();
      String body = "{\"threadId\":\"" + page + "\",\"runId\":\"r1\",\"messages\":[{\"id\":\"m1\",\"role\":\"user\","
          + "\"content\":\"deploy page\"}],\"tools\":[],\"context\":[],\"state\":{},\"forwardedProps\":{}}";
      HttpResponse<String> first = http.send(HttpRequest.newBuilder(URI.create(cluster.base() + "/agui"))
          .header("Content-Type", "application/json").header("Authorization", "Bearer " + ClusterInstance.TOKEN)
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(first.body()).as(first.body()).contains("\"type\":\"interrupt\"");
      String callId = first.body().replaceAll("(?s).*\"toolCallId\":\"([^\"]+)\".*", "$1");
      try (dev.toolcall.agui.Browser browser = dev.toolcall.agui.Browser.open()) {
        browser.go(URI.create(cluster.base() + "/approvals/#session=" + page + "&token=" + ClusterInstance.TOKEN));
        browser.click(callId, "approve_once");
        long pageUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (cluster.count("SELECT count(*) FROM toolcall_conversation WHERE conversation_id = '" + page + "'"
            + " AND document::text LIKE '%done: [ran deploy page]%' AND owner IS NULL") == 0) {
          assertThat(System.nanoTime()).as("the page's approval made the turn go on").isLessThan(pageUntil);
          Thread.sleep(100);
        }
      }

      cluster.check(1); // and the page's conversation
      // the figures of the run (turns per second, decision to tool start, kill to takeover), for docs/performance.md
      ClusterHarness.write(cluster.figures(run), Path.of("target/cluster-figures.json"));
    }
  }
}
