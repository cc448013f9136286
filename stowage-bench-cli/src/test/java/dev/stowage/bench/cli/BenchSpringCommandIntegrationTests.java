package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.spring.SpringCacheBench;
import dev.stowage.cli.StowageCli;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@WithRedis
class BenchSpringCommandIntegrationTests {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private CommandLine cli() {
    return StowageCli.commandLine()
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true));
  }

  private static BenchSpringCommand command(String... args) {
    return (BenchSpringCommand)
        StowageCli.commandLine()
            .parseArgs(args)
            .subcommand()
            .subcommand()
            .commandSpec()
            .userObject();
  }

  @Test
  void optionsBecomePlans() {
    SpringCacheBench.Plan defaults = command("bench", "spring").plan();
    assertThat(defaults.records()).isEqualTo(100_000);
    assertThat(defaults.concurrency()).isEqualTo(200);
    assertThat(defaults.duration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.quick()).isFalse();

    SpringCacheBench.Plan quick = command("bench", "spring", "--quick").plan();
    assertThat(quick.quick()).isTrue();
    assertThat(quick.records()).isEqualTo(20_000);
    assertThat(quick.duration()).isEqualTo(Duration.ofSeconds(10));

    SpringCacheBench.Plan given =
        command(
                "bench",
                "spring",
                "--records",
                "500",
                "--concurrency",
                "20",
                "--duration",
                "2",
                "--warmup",
                "1",
                "--rows",
                "stowage-cache-manager")
            .plan();
    assertThat(given.records()).isEqualTo(500);
    assertThat(given.warmupRecords()).as("never more warm-up records than records").isEqualTo(500);
    assertThat(given.concurrency()).isEqualTo(20);
    assertThat(given.duration()).isEqualTo(Duration.ofSeconds(2));
    assertThat(given.warmup()).isEqualTo(Duration.ofSeconds(1));
    assertThat(given.rows()).containsExactly("stowage-cache-manager");
  }

  @Test
  void aSmallQuickRunWritesSpringJsonWithBothManagersAndTheirRatios(
      RedisServer redis, @TempDir Path dir) {
    redis.flushAll();
    int exit =
        cli()
            .execute(
                "bench",
                "spring",
                "--quick",
                "--redis",
                redis.uri(),
                "--records",
                "400",
                "--concurrency",
                "16",
                "--warmup",
                "1",
                "--duration",
                "1",
                "--out",
                dir.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("bench spring: 400 board records", "16 callers", "results written to");
    assertThat(out.toString())
        .contains("hits/s", "B/record", SpringCacheBench.SPRING, SpringCacheBench.STOWAGE, "1.00");
    ResultsDocument results = ResultsDocument.read(dir.resolve("spring.json"));
    assertThat(results.quick()).isTrue();
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactlyElementsOf(SpringCacheBench.rowNames());
    ResultRow spring = results.rows().get(0);
    ResultRow stowage = results.rows().get(1);
    ResultTable table = SpringCacheBench.table();
    assertThat(table.baselineOf(stowage, results.rows())).contains(spring);
    for (String metric : new String[] {"hit_ops_per_s", "miss_ops_per_s", "bytes_per_record"}) {
      assertThat(ResultTable.ratio(stowage, spring, metric)).as(metric).isPresent();
      assertThat(ResultTable.ratio(stowage, spring, metric).getAsDouble()).as(metric).isPositive();
    }
  }
}
