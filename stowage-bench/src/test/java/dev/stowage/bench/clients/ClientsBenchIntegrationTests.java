package dev.stowage.bench.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Encoding;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithRedis
class ClientsBenchIntegrationTests {

  private static final long KEYS = 500;

  @Test
  void everyClientReadsTheLoadedItemsAndTheResultsHaveTheT4Shape(
      RedisServer server, @TempDir Path dir) {
    server.flushAll();
    Optional<Path> redisBenchmark = ClientsBench.findOnPath("redis-benchmark");
    ClientsBench.Plan plan =
        new ClientsBench.Plan(
            KEYS,
            8,
            Duration.ofMillis(200),
            Duration.ofMillis(500),
            true,
            List.of(),
            redisBenchmark,
            true);
    ResultsDocument results;
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      results =
          ClientsBench.run(
              plan,
              redis,
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      assertThat(redis.countKeys(ClientsBench.KEY_PREFIX)).isEqualTo(KEYS);
    }

    List<String> expected =
        redisBenchmark.isPresent()
            ? ClientsBench.rowNames()
            : ClientsBench.rowNames().subList(0, 4);
    assertThat(results.rows()).extracting(ResultRow::name).containsExactlyElementsOf(expected);
    for (ResultRow row : results.rows()) {
      assertThat(row.metric("ops").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("ops_per_s").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("p99_ms").getAsDouble())
          .as(row.name())
          .isGreaterThanOrEqualTo(row.metric("p50_ms").getAsDouble());
      assertThat(row.params()).containsEntry("keys", KEYS).containsEntry("concurrency", 8);
      assertThat(Double.parseDouble(row.param("load_keys_per_s"))).as("load rate").isPositive();
      assertThat(Double.parseDouble(row.param("used_memory_bytes_per_key")))
          .as("memory per key")
          .isBetween(50.0, 2_000.0);
      if (row.role() != RowRole.LIMIT) {
        assertThat(row.metric("misses")).as(row.name()).hasValue(0);
        assertThat(row.metric("client_cpu_pct")).isPresent();
      }
    }
    // Connections: the pooled Jedis rows open several, the Lettuce-based rows one each.
    assertThat(metric(results, "lettuce-shared", "connections_opened")).isEqualTo(1);
    assertThat(metric(results, "stowage", "connections_opened")).isBetween(1.0, 2.0);
    assertThat(metric(results, "jedis-pool-128", "connections_opened")).isGreaterThanOrEqualTo(8);
    assertThat(metric(results, "jedis-spring-default", "connections_opened")).isBetween(1.0, 8.0);
    assertThat(results.rows().get(0).param("pool")).isEqualTo("Spring's default: max 8");

    // The values are Stowage envelopes of the items, read back here without the bench's clients.
    Encoding.Serializer<Item> codec = ClientsBench.envelope();
    List<Item> templates = Samples.items(10_000);
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      for (long i : new long[] {0, 1, 250, KEYS - 1}) {
        byte[] value =
            connection
                .sync()
                .get(
                    (ClientsBench.KEY_PREFIX + ClientsBench.keySuffix(i))
                        .getBytes(StandardCharsets.UTF_8));
        assertThat(value[0]).isEqualTo((byte) 0xC1);
        assertThat(codec.decode(value)).isEqualTo(ClientsBench.item(templates, i));
      }
    } finally {
      client.shutdown();
    }

    ResultsDocument read = ResultsDocument.read(results.writeTo(dir));
    assertThat(read.bench()).isEqualTo("clients");
    assertThat(read.toJson()).isEqualTo(results.toJson());
    assertThat(ClientsBench.table().render(read.rows())).contains("x lettuce", "jedis-pool-128");
  }

  @Test
  void keysAreTwelveDigitsAsRedisBenchmarkWritesThem() {
    assertThat(ClientsBench.keySuffix(0)).isEqualTo("000000000000");
    assertThat(ClientsBench.keySuffix(9_999_999)).isEqualTo("000009999999");
  }

  @Test
  void redisBenchmarkCsvIsParsedByColumn() {
    Map<String, Double> csv =
        ClientsBench.parseCsv(
            """
            "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
            "GET k","61349.69","0.420","0.100","0.391","0.700","1.031","3.100"
            """);
    assertThat(csv)
        .containsEntry("rps", 61349.69)
        .containsEntry("p50_latency_ms", 0.391)
        .containsEntry("p99_latency_ms", 1.031);
    assertThatThrownBy(() -> ClientsBench.parseCsv("ERR unknown command"))
        .isInstanceOf(BenchmarkRunException.class)
        .hasMessageContaining("no CSV");
  }

  private static double metric(ResultsDocument results, String row, String metric) {
    return results.rows().stream()
        .filter(r -> r.name().equals(row))
        .findFirst()
        .orElseThrow()
        .metric(metric)
        .orElseThrow();
  }
}
