package dev.stowage.bench.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.app.PersonSerializers;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Person;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithRedis
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class MemoryBenchIntegrationTests {

  @Test
  void everyBoardRowStoresEveryRecordAndReportsItsMemory(RedisServer server, @TempDir Path dir) {
    server.flushAll();
    ResultsDocument results;
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      results =
          MemoryBench.run(
              new MemoryBench.Plan(RecordKind.BOARD, 300, true, List.of(), false),
              redis,
              new PrintStream(new ByteArrayOutputStream()));
      assertThat(redis.countKeys(MemoryBench.BORROWED_PREFIX)).isZero();
    }

    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactlyElementsOf(MemoryBench.rowNames(RecordKind.BOARD));
    assertThat(results.rows())
        .filteredOn(r -> r.role() == RowRole.SEED)
        .extracting(ResultRow::name)
        .containsExactly("zset/json", "zset/msgpack");
    for (ResultRow row : results.rows()) {
      assertThat(row.metric("stored")).as(row.name()).hasValue(300);
      assertThat(row.metric("verified")).as(row.name()).hasValue(300);
      assertThat(row.metric("records")).hasValue(300);
      // Redis keeps every value plus its own bookkeeping: more than the values alone.
      assertThat(row.metric("used_memory_bytes").getAsDouble())
          .as(row.name())
          .isGreaterThan(300 * row.metric("mean_value_bytes").getAsDouble());
      assertThat(row.param("records")).isEqualTo("board");
      assertThat(row.params()).containsKeys("layout", "codec", "compression");
    }
    ResultRow seed = row(results, "zset/json");
    assertThat(seed.metric("x_seed")).hasValue(1.0);
    assertThat(
            row(results, "zset/msgpack-compact+zstd-dict").metric("mean_value_bytes").getAsDouble())
        .isLessThan(seed.metric("mean_value_bytes").getAsDouble() / 2);

    ResultsDocument read = ResultsDocument.read(results.writeTo(dir));
    assertThat(read.bench()).isEqualTo("memory");
    assertThat(read.toJson()).isEqualTo(results.toJson());
    assertThat(MemoryBench.table(RecordKind.BOARD).render(read.rows()))
        .contains("layout: zset", "layout: keys", "x seed");
  }

  @Test
  void theSeedsOwnFormsAreWhatIsLeftInRedis(RedisServer server) {
    server.flushAll();
    try (BenchRedis redis = BenchRedis.external(server.uri())) {
      MemoryBench.run(
          new MemoryBench.Plan(RecordKind.PERSON, 50, true, List.of("keys/fastjson"), true),
          redis,
          new PrintStream(new ByteArrayOutputStream()));
      for (Person person : Samples.people(50)) {
        String text = redis.admin().get(MemoryBench.BORROWED_PREFIX + "person_" + person.id());
        assertThat(PersonSerializers.fromFastjson(text)).isEqualTo(person);
        assertThat(text).startsWith("{").contains("\"md5\":\"" + person.md5() + "\"");
      }
      MemoryBench.run(
          new MemoryBench.Plan(RecordKind.BOARD, 40, true, List.of("zset/json"), true),
          redis,
          new PrintStream(new ByteArrayOutputStream()));
      List<String> members = redis.admin().zrange(MemoryBench.BORROWED_PREFIX + "board", 0, -1);
      assertThat(members).hasSize(40);
      List<BoardRecord> boards = Samples.boards(40);
      assertThat(members.get(0)).contains("\"member_id\":" + boards.get(0).memberId());
      assertThat(redis.admin().zscore(MemoryBench.BORROWED_PREFIX + "board", members.get(39)))
          .isEqualTo(40.0);
    }
  }

  private static ResultRow row(ResultsDocument results, String name) {
    return results.rows().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
  }
}
