package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
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
class BenchClusterCommandIntegrationTests {

  @Test
  void optionsBecomeAPlan() {
    BenchClusterCommand command =
        (BenchClusterCommand)
            StowageCli.commandLine()
                .parseArgs(
                    "bench",
                    "cluster",
                    "--quick",
                    "--items",
                    "500",
                    "--concurrency",
                    "8",
                    "--duration",
                    "3",
                    "--rows",
                    "stowage")
                .subcommand()
                .subcommand()
                .commandSpec()
                .userObject();
    assertThat(command.plan().items()).isEqualTo(500);
    assertThat(command.plan().concurrency()).isEqualTo(8);
    assertThat(command.plan().duration()).isEqualTo(Duration.ofSeconds(3));
    assertThat(command.plan().warmup()).isEqualTo(Duration.ofSeconds(2));
    assertThat(command.plan().repeats()).isEqualTo(3);
    assertThat(command.plan().rows()).containsExactly("stowage");

    BenchClusterCommand defaults =
        (BenchClusterCommand)
            StowageCli.commandLine()
                .parseArgs("bench", "cluster")
                .subcommand()
                .subcommand()
                .commandSpec()
                .userObject();
    assertThat(defaults.plan().items()).isEqualTo(30_000);
    assertThat(defaults.plan().concurrency()).isEqualTo(200);
    assertThat(defaults.plan().repeats()).isEqualTo(7);
  }

  @Test
  void aSmallRunOnAGivenServerAndAnEmbeddedClusterWritesClusterJson(
      RedisServer redis, @TempDir Path dir) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli =
        StowageCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
    int exit =
        cli.execute(
            "bench",
            "cluster",
            "--redis",
            redis.uri(),
            "--items",
            "200",
            "--concurrency",
            "2",
            "--warmups",
            "0",
            "--repeats",
            "1",
            "--warmup",
            "0",
            "--duration",
            "1",
            "--rows",
            "redisson-RBatch,lettuce-raw@cluster",
            "--out",
            dir.toString());
    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains(
            "topology: single",
            "topology: cluster",
            "redisson-RBatch@cluster",
            "lettuce-raw@cluster");
    ResultsDocument results = ResultsDocument.read(dir.resolve("cluster.json"));
    assertThat(results.bench()).isEqualTo("cluster");
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactly(
            "redisson-RBatch@single", "redisson-RBatch@cluster", "lettuce-raw@cluster");
    assertThat(results.rows())
        .allSatisfy(row -> assertThat(row.metric("verified")).as(row.name()).hasValue(200));
    assertThat(results.rows().get(1).metric("putall_x_single")).isPresent();

    exit =
        cli.execute(
            "bench",
            "cluster",
            "--redis",
            redis.uri(),
            "--cluster-redis",
            "redis://127.0.0.1:1",
            "--items",
            "10",
            "--out",
            dir.resolve("none").toString());
    assertThat(exit).isEqualTo(1);
    assertThat(err.toString())
        .contains(
            "bench cluster failed: cannot connect to the Redis Cluster at [redis://127.0.0.1");
    assertThat(List.of(dir.toFile().list())).containsExactly("cluster.json");
  }
}
