package dev.stowage.bench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

@WithRedis
class PipelineBenchIntegrationTests {

  private static final List<Integer> SIZES = List.of(3, 40);

  @Test
  void everyRowWritesEveryItemAndTheResultsHaveTheT2Shape(RedisServer server, @TempDir Path dir)
      throws Exception {
    server.command("SET", "someone-elses-key", "kept");
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    ResultsDocument results;
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      results =
          PipelineBench.run(
              new PipelineBench.Plan(SIZES, 1, 2, true, List.of(), true),
              redis,
              new PrintStream(progress, true, StandardCharsets.UTF_8));
    }

    List<String> rowNames = PipelineBench.rowNames();
    assertThat(results.bench()).isEqualTo("pipeline");
    assertThat(results.rows()).hasSize(rowNames.size() * SIZES.size());
    for (int i = 0; i < SIZES.size(); i++) {
      int n = SIZES.get(i);
      List<ResultRow> section =
          results.rows().subList(i * rowNames.size(), (i + 1) * rowNames.size());
      assertThat(section).extracting(ResultRow::name).containsExactlyElementsOf(rowNames);
      for (ResultRow row : section) {
        assertThat(row.param("n")).isEqualTo(Integer.toString(n));
        assertThat(row.metric("keys")).hasValue(n);
        assertThat(row.metric("verified")).hasValue(n);
        assertThat(row.metric("runs")).hasValue(2);
        assertThat(row.metric("median_ms").getAsDouble()).isPositive();
        assertThat(row.metric("min_ms").getAsDouble())
            .isLessThanOrEqualTo(row.metric("max_ms").getAsDouble());
        assertThat(row.metric("x_limit")).isPresent();
      }
      assertThat(
              section.stream()
                  .filter(r -> r.name().equals(PipelineBench.LIMIT_ROW))
                  .findFirst()
                  .orElseThrow()
                  .metric("x_limit"))
          .hasValue(1.0);
    }
    assertThat(results.rows())
        .extracting(ResultRow::role)
        .contains(RowRole.SEED, RowRole.PEER, RowRole.LIMIT);
    assertThat(progress.toString(StandardCharsets.UTF_8).lines())
        .hasSize(rowNames.size() * SIZES.size());

    // The last size's keys are still there, one per item per row, and read back with the row's own
    // format.
    List<Item> items = Samples.items(40);
    ObjectMapper json =
        new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    for (String row :
        List.of(SpringOneByOneWriter.NAME, SpringPipelinedWriter.NAME, LettuceRawWriter.NAME)) {
      String prefix = PipelineBench.KEY_PREFIX + row + ":item:";
      assertThat(server.command("EXISTS", prefix + items.get(39).id())).isEqualTo(":1");
      try (BenchRedis redis = BenchRedis.external(server.uri())) {
        assertThat(redis.countKeys(prefix)).isEqualTo(40);
        for (Item item : items) {
          String value = redis.admin().get(prefix + item.id());
          assertThat(json.readValue(value, Item.class)).isEqualTo(item);
        }
      }
    }
    Config config = new Config();
    config.useSingleServer().setAddress(server.uri());
    RedissonClient redisson = Redisson.create(config);
    try {
      for (Item item : items) {
        assertThat(
                redisson
                    .<Item>getBucket(
                        PipelineBench.KEY_PREFIX + RedissonBatchWriter.NAME + ":item:" + item.id())
                    .get())
            .isEqualTo(item);
      }
    } finally {
      redisson.shutdown();
    }
    String stowagePrefix = PipelineBench.KEY_PREFIX + StowagePutAllWriter.NAME + ":item:";
    try (Stowage stowage = Stowage.builder().redis(server.uri()).build();
        BenchRedis redis = BenchRedis.external(server.uri())) {
      assertThat(redis.countKeys(stowagePrefix)).isEqualTo(40);
      RedisCache<Long, Item> cache =
          stowage
              .cache("check", Item.class)
              .<Long>keys(String::valueOf)
              .keyPrefix(stowagePrefix)
              .build();
      assertThat(cache.getAll(items.stream().map(Item::id).toList()))
          .hasSize(40)
          .containsValues(items.toArray(Item[]::new));
      assertThat(redis.admin().ttl(stowagePrefix + items.get(0).id())).isPositive();
      String noExpiryPrefix =
          PipelineBench.KEY_PREFIX + StowagePutAllWriter.NO_EXPIRY_NAME + ":item:";
      assertThat(redis.countKeys(noExpiryPrefix)).isEqualTo(40);
      assertThat(redis.admin().ttl(noExpiryPrefix + items.get(0).id()))
          .as("no expiry, as the seed writes")
          .isEqualTo(-1);
    }
    assertThat(server.command("GET", "someone-elses-key")).isEqualTo("$4");

    Path file = results.writeTo(dir);
    assertThat(file.getFileName().toString()).isEqualTo("pipeline.json");
    ResultsDocument read = ResultsDocument.read(file);
    assertThat(read.toJson()).isEqualTo(results.toJson());
    assertThat(read.env()).containsKey("redis_version");

    String table = PipelineBench.table().render(read.rows());
    assertThat(table.lines().filter(line -> line.startsWith("n: ")).collect(Collectors.toList()))
        .containsExactly("n: 3", "n: 40");
    assertThat(table).contains("x pipelined");
  }

  @Test
  void withoutKeepingKeysABorrowedServerIsLeftAsItWas(RedisServer server) {
    server.flushAll();
    server.command("SET", "someone-elses-key", "kept");
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      PipelineBench.run(
          new PipelineBench.Plan(List.of(5), 0, 1, true, List.of(LettuceRawWriter.NAME), false),
          redis,
          new PrintStream(new ByteArrayOutputStream()));
      assertThat(redis.countKeys(PipelineBench.KEY_PREFIX)).isZero();
    }
    assertThat(server.command("DBSIZE")).isEqualTo(":1");
  }

  @Test
  void anUnknownRowIsRefusedByName(RedisServer server) {
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      assertThatThrownBy(
              () ->
                  PipelineBench.run(
                      new PipelineBench.Plan(List.of(5), 0, 1, true, List.of("jedis"), false),
                      redis,
                      System.err))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("unknown row 'jedis'")
          .hasMessageContaining(LettuceRawWriter.NAME);
    }
  }

  @Test
  void everyRowReachesARedisThatWantsAPassword(RedisServer server) throws Exception {
    server.command("CONFIG", "SET", "requirepass", "s3cret");
    String uri = "redis://:s3cret@127.0.0.1:" + server.port();
    try (BenchRedis redis = BenchRedis.external(uri)) {
      ResultsDocument results =
          PipelineBench.run(
              new PipelineBench.Plan(List.of(3), 0, 1, true, List.of(), false),
              redis,
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      assertThat(results.rows())
          .extracting(ResultRow::name)
          .containsExactlyElementsOf(PipelineBench.rowNames());
      assertThat(results.rows()).allSatisfy(row -> assertThat(row.metric("verified")).hasValue(3));
    } finally {
      RedisClient client = RedisClient.create(uri);
      try (var connection = client.connect()) {
        connection.sync().configSet("requirepass", "");
      } finally {
        client.shutdown();
      }
    }
  }
}
