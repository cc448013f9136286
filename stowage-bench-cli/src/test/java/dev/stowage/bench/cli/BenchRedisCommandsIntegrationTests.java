package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.memory.RecordKind;
import dev.stowage.cli.StowageCli;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@WithRedis
class BenchRedisCommandsIntegrationTests {

  @Test
  void optionsBecomePlans() {
    CommandLine cli = StowageCli.commandLine();
    BenchPipelineCommand pipeline =
        (BenchPipelineCommand)
            cli.parseArgs("bench", "pipeline", "--quick", "--sizes", "10,30000", "--repeats", "5")
                .subcommand()
                .subcommand()
                .commandSpec()
                .userObject();
    assertThat(pipeline.plan().sizes()).containsExactly(10, 30_000);
    assertThat(pipeline.plan().repeats()).isEqualTo(5);
    assertThat(pipeline.plan().warmups()).isEqualTo(1);

    cli = StowageCli.commandLine();
    BenchMemoryCommand memory =
        (BenchMemoryCommand)
            cli.parseArgs("bench", "memory", "--records", "person", "--quick")
                .subcommand()
                .subcommand()
                .commandSpec()
                .userObject();
    assertThat(memory.plan().kind()).isEqualTo(RecordKind.PERSON);
    assertThat(memory.plan().count()).isEqualTo(100_000);

    cli = StowageCli.commandLine();
    BenchClientsCommand clients =
        (BenchClientsCommand)
            cli.parseArgs("bench", "clients", "--scale", "seed", "--concurrency", "50")
                .subcommand()
                .subcommand()
                .commandSpec()
                .userObject();
    assertThat(clients.plan().keys()).isEqualTo(10_000_000L);
    assertThat(clients.plan().concurrency()).isEqualTo(50);

    cli = StowageCli.commandLine();
    BenchAppCommand app =
        (BenchAppCommand)
            cli.parseArgs("bench", "app", "--quick")
                .subcommand()
                .subcommand()
                .commandSpec()
                .userObject();
    assertThat(app.plan().requests()).isEqualTo(1_000);
    assertThat(app.plan().concurrency()).isEqualTo(200);
  }

  @Test
  void pipelineAndAppRunAgainstAGivenRedisAndWriteTheirResults(
      RedisServer redis, @TempDir Path dir) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli =
        StowageCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
    int exit =
        cli.execute(
            "bench",
            "pipeline",
            "--redis",
            redis.uri(),
            "--sizes",
            "5",
            "--repeats",
            "1",
            "--warmups",
            "0",
            "--out",
            dir.toString());
    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("n: 5", "spring-executePipelined", "stowage-putAll", "stowage-putAll-noExpiry");
    assertThat(ResultsDocument.read(dir.resolve("pipeline.json")).rows()).hasSize(6);

    exit =
        cli.execute(
            "bench",
            "app",
            "--redis",
            redis.uri(),
            "--requests",
            "2",
            "--concurrency",
            "2",
            "--rows",
            "stowage",
            "--out",
            dir.toString());
    assertThat(exit).as(err.toString()).isZero();
    assertThat(ResultsDocument.read(dir.resolve("app.json")).rows()).hasSize(1);
  }

  @Test
  void anUnknownRowFailsWithTheChoices(RedisServer redis, @TempDir Path dir) {
    StringWriter err = new StringWriter();
    CommandLine cli = StowageCli.commandLine().setErr(new PrintWriter(err));
    int exit =
        cli.execute(
            "bench",
            "memory",
            "--redis",
            redis.uri(),
            "--count",
            "20",
            "--rows",
            "zset/yaml",
            "--out",
            dir.toString());
    assertThat(exit).isEqualTo(1);
    assertThat(err.toString()).contains("unknown row 'zset/yaml'", "feed/default+zstd-dict");
    assertThat(List.of(dir.toFile().list())).isEmpty();
  }
}
