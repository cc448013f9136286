package dev.stowage.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The stowage command as this module alone makes it: stowage-bench-cli is not on this class path.
 */
class StowageCliUnitTests {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private CommandLine cli() {
    CommandLine cli = StowageCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli;
  }

  @Test
  void withoutASubcommandItSaysWhichOnesExist() {
    assertThat(cli().execute()).isEqualTo(2);
    assertThat(err.toString()).contains("Missing subcommand").contains("bench");
  }

  @Test
  void helpAndVersionExitZero() {
    assertThat(cli().execute("--help")).isZero();
    assertThat(out.toString())
        .contains("Usage: stowage")
        .contains("bench")
        .contains("serve")
        .contains("events")
        .contains("inspect")
        .contains("scan")
        .contains("dict")
        .contains("json")
        .contains("migrate");

    out.getBuffer().setLength(0);
    assertThat(cli().execute("--version")).isZero();
    assertThat(out.toString())
        .startsWith("stowage ")
        .contains("java " + System.getProperty("java.version"));
  }

  @Test
  void withoutTheBenchOnTheClassPathBenchIsListedAndSaysWhereItIs() {
    assertThat(cli().getSubcommands().keySet())
        .containsExactly(
            "bench", "serve", "events", "inspect", "scan", "dict", "json", "migrate", "report",
            "help");
    assertThat(cli().execute("--help")).isZero();
    assertThat(out.toString()).contains("Reproduce a seed's table");

    for (String[] args :
        List.of(
            new String[] {"bench"},
            new String[] {"bench", "--help"},
            new String[] {"bench", "codecs", "--quick", "--out", "/tmp/r"},
            new String[] {"report"},
            new String[] {"report", "--results", "/tmp/r"})) {
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      assertThat(cli().execute(args)).as(String.join(" ", args)).isEqualTo(1);
      assertThat(err.toString())
          .startsWith("stowage " + args[0] + ": ")
          .contains("the benchmarks (module stowage-bench-cli) are not on this class path")
          .contains("./stowage");
      assertThat(out.toString()).isEmpty();
    }
  }

  @Test
  void theHelpListsEveryCommandAndHelpOfACommandIsItsUsage() {
    assertThat(cli().execute("--help")).isZero();
    assertThat(out.toString())
        .contains("report")
        .contains("Build one self-contained HTML page")
        .contains("help");

    out.getBuffer().setLength(0);
    assertThat(cli().execute("help", "inspect")).isZero();
    String viaHelp = out.toString();
    out.getBuffer().setLength(0);
    assertThat(cli().execute("inspect", "--help")).isZero();
    assertThat(viaHelp).isEqualTo(out.toString()).contains("Usage: stowage inspect");

    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    assertThat(cli().execute("help", "no-such-command")).isNotZero();
    assertThat(err.toString()).contains("no-such-command");
  }
}
