package dev.stowage.bench.nearcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.ClosedLoop;
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
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.options.LocalCachedMapOptions.SyncStrategy;

@WithRedis
class NearCacheBenchIntegrationTests {

  private static final int KEYS = 500;

  @Test
  void everyRowReadsWhileTheWriterWritesAndStowageNearReadsNothingStale(
      RedisServer server, @TempDir Path dir) {
    server.flushAll();
    NearCacheBench.Plan plan =
        new NearCacheBench.Plan(
            KEYS,
            1.0,
            8,
            50,
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            true,
            List.of(),
            false);
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    ResultsDocument results;
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      results =
          NearCacheBench.run(plan, redis, new PrintStream(progress, true, StandardCharsets.UTF_8));
      // The bench's own keys are gone; what is left is the schema Stowage's caches save for every
      // reader of the
      // server, shared and write-once, which a bench on a borrowed server must not delete.
      assertThat(redis.admin().keys("*"))
          .allMatch(key -> key.startsWith(Inspector.Keys.NAMESPACE + "schema:"));
    }

    assertThat(results.bench()).isEqualTo("nearcache");
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactly(
            "stowage", "stowage-near", "lettuce-client-side-caching", "redisson-local-cached-map");
    assertThat(results.rows())
        .extracting(ResultRow::role)
        .containsExactly(RowRole.STOWAGE, RowRole.STOWAGE, RowRole.PEER, RowRole.PEER);
    for (ResultRow row : results.rows()) {
      assertThat(row.metric("reads").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("reads_per_s").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("p99_us").getAsDouble())
          .as(row.name())
          .isGreaterThanOrEqualTo(row.metric("p50_us").getAsDouble());
      assertThat(row.metric("writes").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("writes_per_s").getAsDouble()).as(row.name()).isBetween(25.0, 75.0);
      assertThat(row.metric("misses")).as(row.name()).hasValue(0);
      assertThat(row.metric("stale_reads")).as(row.name()).isPresent();
      assertThat(row.metric("stale_reads_after_timeout")).as(row.name()).isPresent();
      assertThat(row.metric("invalidation_timeouts")).as(row.name()).isPresent();
      assertThat(row.metric("stale_keys_at_end")).as(row.name()).isPresent();
      assertThat(row.metric("visible_p99_ms").getAsDouble())
          .as(row.name())
          .isGreaterThanOrEqualTo(row.metric("visible_p50_ms").getAsDouble());
      assertThat(row.metric(NearCacheBench.RATIO_METRIC).getAsDouble()).as(row.name()).isPositive();
      assertThat(row.params())
          .containsEntry("keys", KEYS)
          .containsEntry("concurrency", 8)
          .containsEntry("zipf_exponent", 1.0)
          .containsKey("writer");
    }

    ResultRow stowage = row(results, "stowage");
    ResultRow near = row(results, "stowage-near");
    assertThat(stowage.metric(NearCacheBench.RATIO_METRIC)).hasValue(1.0);
    assertThat(stowage.metric("near_hit_ratio")).isEmpty();
    assertThat(near.metric("stale_reads")).hasValue(0);
    assertThat(near.metric("stale_reads_after_timeout")).hasValue(0);
    assertThat(near.metric("invalidation_timeouts")).hasValue(0);
    assertThat(near.metric("stale_keys_at_end")).hasValue(0);
    assertThat(stowage.metric("stale_keys_at_end")).hasValue(0);
    assertThat(near.metric("near_hit_ratio").getAsDouble()).isBetween(0.5, 1.0);
    // Hits are answered in the process, without a round trip: many times the Redis path.
    assertThat(near.metric(NearCacheBench.RATIO_METRIC).getAsDouble()).isGreaterThan(2.0);
    assertThat(near.metric(NearCacheBench.RATIO_METRIC).getAsDouble())
        .isCloseTo(
            near.metric("reads_per_s").getAsDouble() / stowage.metric("reads_per_s").getAsDouble(),
            within(0.01));
    assertThat(row(results, "lettuce-client-side-caching").metric("near_hit_ratio")).isPresent();
    assertThat(row(results, "redisson-local-cached-map").metric("near_hit_ratio")).isEmpty();
    assertThat(row(results, "redisson-local-cached-map").param("notes")).contains("Redis hash");

    assertThat(progress.toString(StandardCharsets.UTF_8))
        .contains("[1/5] loaded 500 items as strings and as a hash")
        .contains("[3/5] stowage-near")
        .contains("[5/5] redisson-local-cached-map");
    ResultsDocument read = ResultsDocument.read(results.writeTo(dir));
    assertThat(read.toJson()).isEqualTo(results.toJson());
    assertThat(NearCacheBench.table().render(read.rows()))
        .contains("x stowage", "stale", "inval t/o", "stowage-near");
  }

  @Test
  void aLocalCacheThatIsNeverToldOfWritesTimesOutAndItsReadsCountAsStale(RedisServer server)
      throws Exception {
    server.flushAll();
    int keys = 20;
    KeySpace keySpace = new KeySpace(keys);
    Encoding.Serializer<Item> envelope = NearCacheBench.envelope();
    List<Item> templates = Samples.items(keys);
    long[] versions = new long[keys];
    Arrays.fill(versions, 1);
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      NearCacheBench.load(
          keys,
          keySpace,
          templates,
          envelope,
          redis,
          false,
          true,
          new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      // SyncStrategy.NONE: Redisson keeps its local copies whatever the other client writes.
      try (ReadClient reader =
              new RedissonLocalCachedClient(
                  redis.redisUri(), keySpace, envelope, keys, SyncStrategy.NONE);
          ItemWriter writer =
              new RedissonLocalCachedClient.Writer(
                  redis.redisUri(), keySpace, envelope, keys, SyncStrategy.NONE)) {
        for (int i = 0; i < keys; i++) {
          assertThat(reader.get(i)).isEqualTo(UpdateLoop.item(templates, i, 1));
        }
        long[] atStart = versions.clone();
        VersionFloors floors = new VersionFloors(versions);
        UpdateLoop updates =
            new UpdateLoop(
                "never-told",
                writer,
                reader,
                versions,
                floors,
                templates,
                50,
                Duration.ofMillis(200));
        SplittableRandom random = new SplittableRandom(5);
        SplittableRandom[] randoms = {random.split(), random.split()};
        updates.start();
        ClosedLoop.run(
            "never-told",
            2,
            Long.MAX_VALUE,
            Duration.ofSeconds(1),
            (thread, sequence) -> {
              int index = randoms[thread].nextInt(keys);
              long floor = floors.beforeRead(index);
              floors.afterRead(floor, UpdateLoop.version(reader.get(index)));
            });
        UpdateLoop.Counts counts = updates.stop();

        assertThat(counts.writes()).isPositive();
        assertThat(counts.timeouts()).isEqualTo(counts.writes());
        assertThat(floors.staleReads()).isZero();
        assertThat(floors.staleReadsAfterTimeout()).isPositive();
        // Without the readers, and given the bound again, the local copies of every key written are
        // still old.
        long keysWritten = IntStream.range(0, keys).filter(i -> versions[i] != atStart[i]).count();
        assertThat(keysWritten).isPositive();
        assertThat(NearCacheBench.staleKeysAtEnd(reader, versions, atStart, Duration.ofMillis(200)))
            .isEqualTo(keysWritten);
        // Redis holds the new versions: only the local copies are old.
        int written = 0;
        while (versions[written] == 1) {
          written++;
        }
        RedisClient client = RedisClient.create(redis.redisUri());
        try (StatefulRedisConnection<byte[], byte[]> connection =
            client.connect(ByteArrayCodec.INSTANCE)) {
          byte[] stored =
              connection
                  .sync()
                  .hget(
                      KeySpace.HASH_KEY.getBytes(StandardCharsets.UTF_8),
                      keySpace.suffix(written).getBytes(StandardCharsets.UTF_8));
          assertThat(envelope.decode(stored))
              .isEqualTo(UpdateLoop.item(templates, written, versions[written]));
        } finally {
          client.shutdown();
        }
        assertThat(reader.get(written)).isEqualTo(UpdateLoop.item(templates, written, 1));
      }
    }
  }

  private static ResultRow row(ResultsDocument results, String name) {
    return results.rows().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
  }
}
