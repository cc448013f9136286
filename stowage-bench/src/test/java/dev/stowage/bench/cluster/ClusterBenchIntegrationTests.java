package dev.stowage.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@WithRedis
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class ClusterBenchIntegrationTests {

  private static final int ITEMS = 300;

  @Test
  void everyRowWritesAndReadsItsItemsOnBothTopologiesAndTheClusterRowsCarryTheirRatios(
      RedisServer server) {
    server.command("SET", "someone-elses-key", "kept");
    ClusterBench.Plan plan =
        new ClusterBench.Plan(
            ITEMS, 4, 1, 2, Duration.ZERO, Duration.ofSeconds(1), true, List.of(), true);
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    RedisClusterSet embedded = RedisClusterSet.start(0);
    List<RedisServer> masters = embedded.masters();
    ResultsDocument results;
    try (Topology single = Topology.single(BenchRedis.external(server.uri()));
        Topology cluster = Topology.cluster(embedded)) {
      results =
          ClusterBench.run(
              plan, single, cluster, new PrintStream(progress, true, StandardCharsets.UTF_8));

      // The last row's keys are still there, spread over all three masters.
      assertThat(masters).hasSize(3);
      for (RedisServer master : masters) {
        assertThat((Long) master.reply("DBSIZE")).as("keys on %s", master).isGreaterThan(0L);
      }
    }

    assertThat(results.bench()).isEqualTo("cluster");
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactlyElementsOf(ClusterBench.rowNames())
        .contains(
            "stowage@single",
            "stowage@cluster",
            "redisson-RBatch@single",
            "redisson-RBatch@cluster",
            "spring-pipelined@single",
            "lettuce-raw@cluster");
    assertThat(results.rows())
        .extracting(ResultRow::role)
        .contains(RowRole.STOWAGE, RowRole.PEER, RowRole.LIMIT);
    for (ResultRow row : results.rows()) {
      boolean onCluster = row.name().endsWith("@cluster");
      assertThat(row.param("topology")).isEqualTo(onCluster ? "cluster" : "single");
      if (row.param("error") != null) {
        // Only Spring may refuse to pipeline on a cluster, and then it says why.
        assertThat(row.name())
            .as("failed row %s: %s", row.name(), row.param("error"))
            .isEqualTo("spring-pipelined@cluster");
        assertThat(row.metrics()).isEmpty();
        continue;
      }
      assertThat(row.metric("keys")).as(row.name()).hasValue(ITEMS);
      assertThat(row.metric("verified")).as(row.name()).hasValue(ITEMS);
      assertThat(row.metric("runs")).hasValue(2);
      assertThat(row.metric("putall_ms").getAsDouble()).isPositive();
      assertThat(row.metric("getall_ms").getAsDouble()).isPositive();
      assertThat(row.metric("get_ops_per_s").getAsDouble()).isPositive();
      assertThat(row.metric("get_p50_ms").getAsDouble())
          .isLessThanOrEqualTo(row.metric("get_p99_ms").getAsDouble());
      List<?> perMaster = (List<?>) row.params().get("keys_per_master");
      if (onCluster) {
        assertThat(row.param("masters")).isEqualTo("3");
        assertThat(perMaster)
            .as(row.name())
            .hasSize(3)
            .allSatisfy(count -> assertThat(((Number) count).longValue()).isPositive());
        for (String ratio : List.of("putall_x_single", "getall_x_single", "get_x_single")) {
          assertThat(row.metric(ratio)).as(row.name() + " " + ratio).isPresent();
          assertThat(row.metric(ratio).getAsDouble()).isPositive();
        }
      } else {
        assertThat(perMaster).hasSize(1);
        assertThat(row.metrics())
            .doesNotContainKeys("putall_x_single", "getall_x_single", "get_x_single");
      }
    }
    ResultRow rbatch =
        results.rows().stream()
            .filter(r -> r.name().equals(ClusterBench.BASELINE_ROW))
            .findFirst()
            .orElseThrow();
    ResultRow rbatchSingle =
        results.rows().stream()
            .filter(r -> r.name().equals("redisson-RBatch@single"))
            .findFirst()
            .orElseThrow();
    assertThat(rbatch.metric("putall_x_single").getAsDouble())
        .isCloseTo(
            rbatch.metric("putall_ms").getAsDouble()
                / rbatchSingle.metric("putall_ms").getAsDouble(),
            offset(0.01));
    String table = ClusterBench.table().render(results.rows());
    assertThat(table).contains("topology: single", "topology: cluster", "putAll x RBatch");
    assertThat(table.lines().filter(line -> line.startsWith(ClusterBench.BASELINE_ROW)))
        .singleElement()
        .asString()
        .contains(" 1.00 ");
    assertThat(progress.toString(StandardCharsets.UTF_8).lines())
        .hasSize(2 * results.rows().size());
    // A borrowed server loses only the bench's keys.
    assertThat(server.reply("GET", "someone-elses-key")).isEqualTo("kept");
  }

  @Test
  void rowsAreChosenByNameOrByClientAndUnknownOnesAreRefused() {
    assertThat(ClusterBench.chosenRows(List.of())).isEqualTo(ClusterBench.rowNames());
    assertThat(ClusterBench.chosenRows(List.of("redisson-RBatch", "lettuce-raw@single")))
        .containsExactly("redisson-RBatch@single", "lettuce-raw@single", "redisson-RBatch@cluster");
    assertThatThrownBy(() -> ClusterBench.chosenRows(List.of("memcached@cluster")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown row 'memcached@cluster'")
        .hasMessageContaining("redisson-RBatch@cluster");
    assertThatThrownBy(
            () ->
                new ClusterBench.Plan(
                    0, 1, 0, 1, Duration.ZERO, Duration.ofSeconds(1), true, List.of(), false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("items must be at least 1");
  }
}
