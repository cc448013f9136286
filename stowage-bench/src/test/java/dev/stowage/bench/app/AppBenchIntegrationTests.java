package dev.stowage.bench.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CacheLayout;
import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Person;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithRedis
class AppBenchIntegrationTests {

  private static final int REQUESTS = 6;

  @Test
  void everyRowStoresAndChecksEveryPersonAndTheResultsHaveTheT5Shape(
      RedisServer server, @TempDir Path dir) {
    server.flushAll();
    ResultsDocument results;
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      results =
          AppBench.run(
              new AppBench.Plan(REQUESTS, 2, 3, true, List.of(), true, 0),
              redis,
              new PrintStream(new ByteArrayOutputStream()));
    }
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactly("fastjson-string", "kryo", "stowage", "stowage-packed");
    assertThat(results.rows())
        .extracting(ResultRow::role)
        .containsExactly(RowRole.SEED, RowRole.SEED, RowRole.STOWAGE, RowRole.STOWAGE);
    for (ResultRow row : results.rows()) {
      assertThat(row.metric("add_ops")).as(row.name()).hasValue(REQUESTS);
      assertThat(row.metric("check_ops")).as(row.name()).hasValue(REQUESTS);
      assertThat(row.metric("people_stored")).as(row.name()).hasValue(REQUESTS * 100);
      assertThat(row.metric("people_checked")).as(row.name()).hasValue(REQUESTS * 100);
      assertThat(row.metric("bytes_per_person").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("add_p99_ms").getAsDouble())
          .isGreaterThanOrEqualTo(row.metric("add_p50_ms").getAsDouble());
    }

    // The last row (Stowage, packed) left its people: ids 1..600, in buckets sized for 600,
    // readable
    // through a cache of its own with the same layout.
    List<Person> templates = Samples.people(10_000);
    String prefix = AppBench.BORROWED_PREFIX + "person_";
    try (Stowage stowage = Stowage.builder().redis(server.uri()).build()) {
      RedisCache<Long, Person> cache =
          stowage
              .cache("check", Person.class)
              .<Long>keys(String::valueOf)
              .keyPrefix(prefix)
              .layout(CacheLayout.packed(REQUESTS * 100))
              .build();
      for (long id : new long[] {1, 2, 300, REQUESTS * 100}) {
        Person person = cache.get(id);
        assertThat(person).isEqualTo(AppBench.person(templates, id));
        assertThat(person.checksumMatches()).isTrue();
      }
      assertThat(cache.get((long) REQUESTS * 100 + 1)).isNull();
    }
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      String bucket =
          Inspector.Keys.packedBucket(prefix, CacheLayout.packed(REQUESTS * 100).bucketOf("1"));
      assertThat(connection.sync().ttl(bucket.getBytes(StandardCharsets.UTF_8))).isEqualTo(-1L);
    } finally {
      client.shutdown();
    }

    ResultsDocument read = ResultsDocument.read(results.writeTo(dir));
    assertThat(read.bench()).isEqualTo("app");
    assertThat(read.toJson()).isEqualTo(results.toJson());
    assertThat(AppBench.table().render(read.rows())).contains("add/s", "check/s", "B/person");
  }

  @Test
  void withRecordsEachRowLoadsThemInBulkMeasuresTheirMemoryAndLeavesNothingBehind(
      RedisServer server) {
    server.flushAll();
    long records = 25_003;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ResultsDocument results;
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      results =
          AppBench.run(
              new AppBench.Plan(2, 0, 2, true, List.of(), false, records),
              redis,
              new PrintStream(printed, true, StandardCharsets.UTF_8));
      assertThat(redis.countKeys(AppBench.BORROWED_PREFIX))
          .as("every row's people were removed")
          .isZero();
    }
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactly("fastjson-string", "kryo", "stowage", "stowage-packed");
    for (ResultRow row : results.rows()) {
      assertThat(row.metric("scale_people")).as(row.name()).hasValue((double) records);
      assertThat(row.metric("scale_people_checked")).as(row.name()).hasValue(1_000);
      assertThat(row.metric("scale_load_per_s").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("scale_bytes_per_person").getAsDouble())
          .as(row.name())
          .isBetween(20.0, 1_000.0);
      assertThat(row.param("records")).isEqualTo(Long.toString(records));
    }
    double fastjson = results.rows().get(0).metric("scale_bytes_per_person").getAsDouble();
    double stowage = results.rows().get(2).metric("scale_bytes_per_person").getAsDouble();
    assertThat(stowage)
        .as("Stowage's compact, compressed values take less than the seed's JSON text")
        .isLessThan(fastjson);
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("[stowage] loading 25,003 people in bulk")
        .containsPattern(
            "\\[kryo\\] 25,003 people: Redis used_memory [0-9.]+ GB = [0-9.]+ GiB \\([0-9.,]+ B per person\\), loaded at [0-9,]+/s");
  }

  @Test
  void theSeedsFormsRoundTripAPerson() {
    Person person = Samples.person(7);
    assertThat(PersonSerializers.fromFastjson(PersonSerializers.toFastjson(person)))
        .isEqualTo(person);
    assertThat(PersonSerializers.fromKryo(PersonSerializers.toKryo(person))).isEqualTo(person);
    assertThat(PersonSerializers.toFastjson(person)).contains("\"md5\":\"" + person.md5() + "\"");
  }
}
