package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BenchHttpCommandIntegrationTests {

  @Test
  void aTinyRunMeasuresEveryModeWithoutErrorsAndWritesHttpJson(@TempDir Path out) {
    CliRun run = CliRun.tinyHttpBench(out);

    assertThat(run.exit()).as(run.stderr()).isZero();
    ResultsDocument results = ResultsDocument.read(out.resolve("http.json"));
    assertThat(results.bench()).isEqualTo("http");
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactly(
            "stowage", "stowage", "seed-json", "seed-json", "seed-msgpack", "seed-msgpack");
    assertThat(results.rows())
        .extracting(row -> row.param("load"))
        .containsExactly("write", "read", "write", "read", "write", "read");
    assertThat(results.rows())
        .extracting(ResultRow::role)
        .containsExactly(
            RowRole.STOWAGE,
            RowRole.STOWAGE,
            RowRole.SEED,
            RowRole.SEED,
            RowRole.SEED,
            RowRole.SEED);
    for (ResultRow row : results.rows()) {
      assertThat(row.metric("errors").getAsDouble())
          .as(row.name() + " " + row.param("load"))
          .isZero();
      assertThat(row.metric("requests").getAsDouble()).as(row.name()).isPositive();
      assertThat(row.metric("rps").getAsDouble()).isPositive();
      assertThat(row.metric("p99_ms").getAsDouble())
          .isGreaterThanOrEqualTo(row.metric("p50_ms").getAsDouble());
      assertThat(row.metric("users").getAsDouble()).isEqualTo(10);
      assertThat(row.metric("redis_used_memory_bytes").getAsDouble()).isPositive();
      assertThat(row.param("records")).isEqualTo("200");
      assertThat(row.param("warmup_s")).isEqualTo("1");
      assertThat(row.param("rounds")).isEqualTo("2");
    }
    List<ResultRow> reads =
        results.rows().stream().filter(row -> "read".equals(row.param("load"))).toList();
    // 25 posts of the seed's shape: the seed's page was about 16.9 KB.
    assertThat(reads)
        .allSatisfy(
            row ->
                assertThat(row.metric("page_bytes").getAsDouble()).isBetween(10_000.0, 30_000.0));
    // The load reads newer posts than the page measured before the write load, so sizes differ a
    // little.
    assertThat(reads)
        .allSatisfy(
            row ->
                assertThat(row.metric("bytes_per_request").getAsDouble())
                    .isCloseTo(
                        row.metric("page_bytes").getAsDouble(), Percentage.withPercentage(20)));
    assertThat(run.stdout()).contains("load: write").contains("load: read").contains("rps/json");
    assertThat(out.resolve("logs").resolve("board-seed-msgpack.log"))
        .as("the board's output goes to its log file")
        .isRegularFile();
  }

  @Test
  void anUnknownModeIsAUsageErrorNamingTheModes() {
    CliRun run = CliRun.of("bench", "http", "--modes", "stowage,xml");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr()).contains("unknown board mode 'xml'").contains("seed-msgpack");
  }
}
