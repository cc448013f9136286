package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultsDocument;
import dev.stowage.cli.StowageCli;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code stowage bench all}: every table in turn, past failures, then the report. */
@WithRedis
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BenchAllCommandIntegrationTests {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private CommandLine cli() {
    return StowageCli.commandLine()
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true));
  }

  @Test
  void aFailedTableIsReportedAndTheNextStillRunsAndTheReportIsWritten(@TempDir Path dir)
      throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }

    int exit =
        cli()
            .execute(
                "bench",
                "all",
                "--quick",
                "--tables",
                "pipeline,memory",
                "--redis",
                "redis://127.0.0.1:" + closedPort,
                "--out",
                dir.toString());

    assertThat(exit).as(err.toString()).isEqualTo(1);
    assertThat(err.toString())
        .contains(
            "bench all: [1/2] pipeline, elapsed ", "bench all: [2/2] memory, elapsed ", " left")
        .containsPattern("pipeline +FAILED")
        .containsPattern("memory +FAILED");
    Path page = dir.resolve("report.html");
    assertThat(page).exists();
    assertThat(out.toString().strip()).isEqualTo(page.toString());
    assertThat(Files.readString(page))
        .contains("./stowage bench pipeline", "./stowage bench memory");
  }

  /** The app table: the quickest of the quick tables (about 16 s here), one is enough. */
  @Test
  void everyTableThatRanIsChartedInTheReport(RedisServer redis, @TempDir Path dir)
      throws IOException {
    int exit =
        cli()
            .execute(
                "bench",
                "all",
                "--quick",
                "--tables",
                "app",
                "--redis",
                redis.uri(),
                "--out",
                dir.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(ResultsDocument.read(dir.resolve("app.json")).quick()).isTrue();
    assertThat(err.toString())
        .contains("bench all: [1/1] app")
        .containsPattern("app +ok")
        .contains("report: 1 table(s) charted [app]");
    assertThat(Files.readString(dir.resolve("report.html")))
        .contains("<rect class=\"bar role-stowage");
  }

  @Test
  void anUnknownTableIsAUsageErrorNamingTheTables(@TempDir Path dir) {
    int exit =
        cli().execute("bench", "all", "--tables", "pipeline,nosuch", "--out", dir.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("no table 'nosuch'; the tables are [codecs, pipeline");
    assertThat(dir.resolve("report.html")).doesNotExist();
  }
}
