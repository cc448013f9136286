package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.nearcache.NearCacheBench;
import dev.stowage.cli.StowageCli;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@WithRedis
class BenchNearCacheCommandIntegrationTests {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private CommandLine cli() {
    return StowageCli.commandLine()
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true));
  }

  private static BenchNearCacheCommand command(String... args) {
    return (BenchNearCacheCommand)
        StowageCli.commandLine()
            .parseArgs(args)
            .subcommand()
            .subcommand()
            .commandSpec()
            .userObject();
  }

  @Test
  void optionsBecomePlans() {
    NearCacheBench.Plan defaults = command("bench", "nearcache").plan();
    assertThat(defaults.keys()).isEqualTo(100_000);
    assertThat(defaults.zipfExponent()).isEqualTo(1.0);
    assertThat(defaults.concurrency()).isEqualTo(200);
    assertThat(defaults.writesPerSecond()).isEqualTo(1_000);
    assertThat(defaults.warmup()).isEqualTo(Duration.ofSeconds(5));
    assertThat(defaults.duration()).isEqualTo(Duration.ofSeconds(20));
    assertThat(defaults.visibilityTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(defaults.quick()).isFalse();
    assertThat(defaults.rows()).isEmpty();

    NearCacheBench.Plan quick = command("bench", "nearcache", "--quick").plan();
    assertThat(quick.quick()).isTrue();
    assertThat(quick.warmup()).isEqualTo(Duration.ofSeconds(3));
    assertThat(quick.duration()).isEqualTo(Duration.ofSeconds(8));
    assertThat(quick.keys()).isEqualTo(100_000);

    NearCacheBench.Plan given =
        command(
                "bench",
                "nearcache",
                "--keys",
                "20000",
                "--zipf",
                "0.8",
                "--concurrency",
                "50",
                "--duration",
                "4",
                "--warmup",
                "1",
                "--rows",
                "stowage,stowage-near")
            .plan();
    assertThat(given.keys()).isEqualTo(20_000);
    assertThat(given.writesPerSecond()).as("1% of the keys a second").isEqualTo(200);
    assertThat(given.zipfExponent()).isEqualTo(0.8);
    assertThat(given.concurrency()).isEqualTo(50);
    assertThat(given.duration()).isEqualTo(Duration.ofSeconds(4));
    assertThat(given.warmup()).isEqualTo(Duration.ofSeconds(1));
    assertThat(given.rows()).containsExactly("stowage", "stowage-near");

    assertThat(
            command("bench", "nearcache", "--keys", "20000", "--writes", "5")
                .plan()
                .writesPerSecond())
        .isEqualTo(5);
  }

  @Test
  void helpListsTheOptions() {
    assertThat(cli().execute("bench", "nearcache", "--help")).isZero();
    assertThat(out.toString())
        .contains(
            "Usage: stowage bench nearcache",
            "Zipf",
            "--redis=URL",
            "--out=DIR",
            "--quick",
            "--keys=N",
            "--zipf=S",
            "--concurrency=C",
            "--writes=PER_SECOND",
            "--duration=SECONDS",
            "--warmup=SECONDS",
            "--rows=ROW",
            "lettuce-client-side-caching",
            "redisson-local-cached-map",
            "1% of the keys");

    out.getBuffer().setLength(0);
    assertThat(cli().execute("bench", "--help")).isZero();
    assertThat(out.toString()).contains("nearcache");
  }

  @Test
  void aTinyRunAgainstAGivenRedisPrintsTheTableAndWritesNearcacheJson(
      RedisServer redis, @TempDir Path dir) {
    redis.flushAll();
    int exit =
        cli()
            .execute(
                "bench",
                "nearcache",
                "--redis",
                redis.uri(),
                "--keys",
                "300",
                "--concurrency",
                "4",
                "--writes",
                "30",
                "--warmup",
                "1",
                "--duration",
                "1",
                "--out",
                dir.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains(
            "bench nearcache: 300 items, Zipf s=1.0, 4 callers, 30 writes/s", "results written to");
    assertThat(out.toString())
        .contains("x stowage", "stale", "inval t/o", "stowage-near", "redisson-local-cached-map");
    ResultsDocument results = ResultsDocument.read(dir.resolve("nearcache.json"));
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactlyElementsOf(NearCacheBench.rowNames());
    assertThat(results.env().get("redis_version")).asString().matches("\\d+\\.\\d+.*");
  }

  @Test
  void anUnknownRowFailsWithTheChoices(RedisServer redis, @TempDir Path dir) {
    int exit =
        cli()
            .execute(
                "bench",
                "nearcache",
                "--redis",
                redis.uri(),
                "--keys",
                "10",
                "--rows",
                "stowage,jedis",
                "--out",
                dir.toString());

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString())
        .contains("unknown row 'jedis'", "stowage-near", "redisson-local-cached-map");
    assertThat(List.of(dir.toFile().list())).isEmpty();
  }
}
