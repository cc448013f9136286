package dev.stowage.bench.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.BoardRecord;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

@WithRedis
class SpringCacheBenchIntegrationTests {

  private static final int RECORDS = 300;

  private static SpringCacheBench.Plan plan(List<String> rows, boolean keepKeys) {
    return new SpringCacheBench.Plan(
        RECORDS, 100, 8, Duration.ofMillis(200), Duration.ofMillis(500), true, rows, keepKeys);
  }

  private static ResultsDocument run(RedisServer server, SpringCacheBench.Plan plan) {
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      return SpringCacheBench.run(
          plan, redis, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }
  }

  private static byte[] raw(RedisServer server, String key) {
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      return connection.sync().get(key.getBytes(StandardCharsets.UTF_8));
    } finally {
      client.shutdown();
    }
  }

  @Test
  void everyRowCachesEveryRecordAndItsHitsNeverRunTheMethod(RedisServer server) {
    server.flushAll();
    ResultsDocument results = run(server, plan(List.of(), false));

    assertThat(results.bench()).isEqualTo("spring");
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactlyElementsOf(SpringCacheBench.rowNames());
    assertThat(results.rows())
        .extracting(ResultRow::role)
        .containsExactly(RowRole.SEED, RowRole.STOWAGE, RowRole.STOWAGE, RowRole.LIMIT);
    for (ResultRow row : results.rows()) {
      assertThat(row.metric("miss_ops")).as(row.name()).hasValue(RECORDS);
      assertThat(row.metric("hit_ops").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("method_calls_during_hits"))
          .as(row.name() + ": every hit came from the cache")
          .hasValue(0);
      assertThat(row.metric("hit_ops_per_s").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("miss_ops_per_s").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("hit_p99_ms").getAsDouble())
          .as(row.name())
          .isGreaterThanOrEqualTo(row.metric("hit_p50_ms").getAsDouble());
      assertThat(row.params())
          .containsEntry("records", RECORDS)
          .containsEntry("concurrency", 8)
          .containsKey("cache_manager");
    }
    for (String name :
        List.of(SpringCacheBench.SPRING, SpringCacheBench.STOWAGE, SpringCacheBench.STOWAGE_NEAR)) {
      ResultRow row = row(results, name);
      assertThat(row.metric("keys_stored")).as(name).hasValue(RECORDS);
      assertThat(row.metric("bytes_per_record").getAsDouble()).as(name).isPositive();
      assertThat(row.metric("sample_value_bytes").getAsDouble()).as(name).isPositive();
    }
    assertThat(row(results, SpringCacheBench.SPRING).param("value_format"))
        .isEqualTo("JSON with @class");
    assertThat(row(results, SpringCacheBench.STOWAGE).param("value_format"))
        .startsWith("envelope: ");
    assertThat(row(results, SpringCacheBench.STOWAGE_NEAR).param("value_format"))
        .startsWith("envelope: ");
    assertThat(row(results, SpringCacheBench.STOWAGE_NEAR).param("cache_manager"))
        .contains("near cache");
    assertThat(row(results, SpringCacheBench.IN_PROCESS).metric("bytes_per_record")).isEmpty();
    // Nothing of the bench is left on a server it does not own: neither keys nor Stowage's learned
    // dictionary.
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      assertThat(redis.admin().keys("*"))
          .allMatch(key -> key.startsWith(Inspector.Keys.NAMESPACE + "schema:"));
    }
  }

  @Test
  void springWritesJsonWithItsClassAndStowageWritesEnvelopesUnderTheSameKeys(RedisServer server) {
    server.flushAll();
    run(server, plan(List.of(SpringCacheBench.SPRING), true));
    byte[] spring = raw(server, SpringCacheBench.KEY_PREFIX + 7);
    assertThat(new String(spring, StandardCharsets.UTF_8))
        .startsWith("{\"@class\":\"" + BoardRecord.class.getName() + "\"")
        .contains("\"score\":8");

    server.flushAll();
    run(server, plan(List.of(SpringCacheBench.STOWAGE), true));
    byte[] stowage = raw(server, SpringCacheBench.KEY_PREFIX + 7);
    assertThat(Encoding.Serializer.isEnvelope(stowage)).isTrue();
    assertThat(stowage.length).isLessThan(spring.length);
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      assertThat(redis.countKeys(SpringCacheBench.KEY_PREFIX)).isEqualTo(RECORDS);
    }
  }

  @Test
  void anUnknownRowIsRefusedWithTheChoices(RedisServer server) {
    assertThatThrownBy(() -> run(server, plan(List.of("jedis"), false)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown row 'jedis'")
        .hasMessageContaining(SpringCacheBench.STOWAGE);
  }

  private static ResultRow row(ResultsDocument results, String name) {
    return results.rows().stream().filter(row -> row.name().equals(name)).findFirst().orElseThrow();
  }
}
