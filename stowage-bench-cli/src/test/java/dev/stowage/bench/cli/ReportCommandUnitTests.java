package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.cli.StowageCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code stowage report}, found by {@link StowageCli#commandLine()} through this module's provider.
 */
class ReportCommandUnitTests {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @TempDir Path temp;

  private CommandLine cli() {
    CommandLine cli = StowageCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli;
  }

  @Test
  void reportReadsResultsAndWritesTheReportThereByDefault() {
    ReportCommand command =
        (ReportCommand) cli().parseArgs("report").subcommand().commandSpec().userObject();
    assertThat(command.results).isEqualTo(Path.of("results"));
    assertThat(command.out).isNull();
  }

  @Test
  void reportChartsWhatABenchWroteAndNamesTheTablesNotRun() throws Exception {
    Path results = temp.resolve("results");
    ResultRow seed =
        new ResultRow(
            "spring-executePipelined", RowRole.SEED, Map.of("n", 10), Map.of("median_ms", 4.0));
    ResultRow stowage =
        new ResultRow("stowage-putAll", RowRole.STOWAGE, Map.of("n", 10), Map.of("median_ms", 1.0));
    new ResultsDocument("pipeline", true, RunEnvironment.capture(), List.of(seed, stowage))
        .writeTo(results);

    int exit = cli().execute("report", "--results", results.toString());

    Path page = results.resolve("report.html");
    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString().strip()).isEqualTo(page.toString());
    assertThat(err.toString())
        .contains(
            "1 table(s) charted [pipeline], not run [memory, http, codecs, clients, app, transport, nearcache, cluster]");
    assertThat(Files.readString(page))
        .contains("\u00d70.25")
        .contains("./stowage bench pipeline --quick");
  }

  @Test
  void reportFailsWhenThePageCannotBeWritten() throws Exception {
    Path file = Files.writeString(temp.resolve("not-a-directory"), "x");

    int exit =
        cli()
            .execute(
                "report",
                "--results",
                temp.toString(),
                "--out",
                file.resolve("report.html").toString());

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString())
        .contains("report failed: cannot write the report to " + file.resolve("report.html"));
  }
}
