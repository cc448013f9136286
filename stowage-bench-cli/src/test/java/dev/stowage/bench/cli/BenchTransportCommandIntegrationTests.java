package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.cli.StowageCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BenchTransportCommandIntegrationTests {

  @Test
  void aTinyRunMeasuresEveryTransportWithoutErrorsAndWritesTransportJson(@TempDir Path out) {
    CliRun run =
        CliRun.of(
            "bench",
            "transport",
            "--records",
            "300",
            "--users",
            "4",
            "--duration",
            "1",
            "--warmup",
            "1",
            "--rounds",
            "1",
            "--out",
            out.toString());

    assertThat(run.exit()).as(run.stderr()).isZero();
    ResultsDocument results = ResultsDocument.read(out.resolve("transport.json"));
    assertThat(results.bench()).isEqualTo("transport");
    assertThat(results.env().get("redis_version")).asString().matches("\\d+\\.\\d+.*");
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactly(
            "http-json",
            "http-msgpack",
            "tcp",
            "tcp-tls",
            "http-json",
            "http-msgpack",
            "tcp",
            "tcp-tls");
    assertThat(results.rows())
        .extracting(row -> row.param("operation"))
        .containsExactly("read", "read", "read", "read", "write", "write", "write", "write");
    assertThat(results.rows())
        .extracting(ResultRow::role)
        .containsExactly(
            RowRole.SEED,
            RowRole.PEER,
            RowRole.STOWAGE,
            RowRole.STOWAGE,
            RowRole.SEED,
            RowRole.PEER,
            RowRole.STOWAGE,
            RowRole.STOWAGE);
    for (ResultRow row : results.rows()) {
      String what = row.name() + " " + row.param("operation");
      assertThat(row.metric("errors").getAsDouble()).as(what).isZero();
      assertThat(row.metric("requests").getAsDouble()).as(what).isPositive();
      assertThat(row.metric("users").getAsDouble()).as(what).isEqualTo(4);
      assertThat(row.metric("p99_ms").getAsDouble())
          .as(what)
          .isGreaterThanOrEqualTo(row.metric("p50_ms").getAsDouble());
    }
    List<ResultRow> reads = results.rows().subList(0, 4);
    // A page of 25 seed-shaped posts, about 16.9 KB of JSON, with a status line and headers on
    // HTTP.
    assertThat(wire(reads.get(0)))
        .isGreaterThan(reads.get(0).metric("bytes_per_request").getAsDouble())
        .isBetween(10_000.0, 30_000.0);
    // MessagePack is smaller than JSON; the frame is smaller than HTTP's headers; TLS adds its
    // records.
    assertThat(wire(reads.get(1))).isLessThan(wire(reads.get(0)));
    assertThat(wire(reads.get(2))).isLessThan(wire(reads.get(1)));
    assertThat(wire(reads.get(3))).isGreaterThan(wire(reads.get(2)));
    // The TCP client's create encodes and decodes inside the client: its bodies are not counted.
    assertThat(results.rows().get(6).metric("bytes_per_request")).isEmpty();
    assertThat(run.stdout())
        .contains("cell: read, 4 users")
        .contains("cell: write, 4 users")
        .contains("rps/json");
    assertThat(out.resolve("logs").resolve("board-transport.log")).isNotEmptyFile();
  }

  @Test
  void anUnknownTransportIsAUsageErrorNamingTheTransports() {
    StringWriter stderr = new StringWriter();
    CommandLine command = StowageCli.commandLine();
    command.setErr(new PrintWriter(stderr, true));

    assertThat(command.execute("bench", "transport", "--transports", "tcp,grpc")).isEqualTo(2);
    assertThat(stderr.toString()).contains("unknown transport 'grpc'").contains("tcp-tls");
    assertThat(command.execute("bench", "transport", "--users", "0")).isEqualTo(2);
    assertThat(stderr.toString()).contains("concurrencies must be from 1 to 10000, not [0]");
  }

  private static double wire(ResultRow row) {
    return row.metric("wire_bytes_per_request").getAsDouble();
  }
}
