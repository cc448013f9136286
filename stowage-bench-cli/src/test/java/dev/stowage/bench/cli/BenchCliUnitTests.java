package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.bench.codecs.CodecUnderTest;
import dev.stowage.bench.codecs.CodecsBench;
import dev.stowage.bench.codecs.DataShape;
import dev.stowage.bench.codecs.PayloadVariant;
import dev.stowage.cli.StowageCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * {@code stowage bench}, found by {@link StowageCli#commandLine()} through the provider of this
 * module.
 */
class BenchCliUnitTests {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private CommandLine cli() {
    CommandLine cli = StowageCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli;
  }

  private static BenchCodecsCommand codecsCommand(ParseResult parsed) {
    ParseResult codecs = parsed.subcommand().subcommand();
    assertThat(codecs.commandSpec().name()).isEqualTo("codecs");
    return (BenchCodecsCommand) codecs.commandSpec().userObject();
  }

  @Test
  void benchCodecsDefaultsToEverythingThoroughIntoResults() {
    BenchCodecsCommand command = codecsCommand(cli().parseArgs("bench", "codecs"));
    CodecsBench.Plan plan = command.plan();

    assertThat(plan.quick()).isFalse();
    assertThat(command.out).isEqualTo(Path.of("results"));
    assertThat(plan.codecs()).containsExactly(CodecUnderTest.values());
    assertThat(plan.variants()).containsExactly(PayloadVariant.values());
    assertThat(plan.data()).containsExactly(DataShape.BOARD, DataShape.MEDIA);
    assertThat(plan.configurations()).isEqualTo(10 * 5 * 2);
  }

  @Test
  void benchCodecsParsesEveryOption() {
    BenchCodecsCommand command =
        codecsCommand(
            cli()
                .parseArgs(
                    "bench",
                    "codecs",
                    "--quick",
                    "--out",
                    "/tmp/r",
                    "--data",
                    "media",
                    "--codecs",
                    "kryo,JSON,msgpack-compact"));
    CodecsBench.Plan plan = command.plan();

    assertThat(plan.quick()).isTrue();
    assertThat(command.out).isEqualTo(Path.of("/tmp/r"));
    assertThat(plan.data()).containsExactly(DataShape.MEDIA);
    assertThat(plan.codecs())
        .containsExactly(CodecUnderTest.KRYO, CodecUnderTest.JSON, CodecUnderTest.MSGPACK_COMPACT);
    assertThat(plan.configurations()).isEqualTo(3 * 5);
  }

  @Test
  void repeatedCodecsOptionsAddUpWithoutDuplicates() {
    CodecsBench.Plan plan =
        codecsCommand(
                cli()
                    .parseArgs(
                        "bench",
                        "codecs",
                        "--codecs",
                        "fory",
                        "--codecs",
                        "avro,fory",
                        "--data",
                        "all"))
            .plan();

    assertThat(plan.codecs()).containsExactly(CodecUnderTest.FORY, CodecUnderTest.AVRO);
    assertThat(plan.data()).containsExactly(DataShape.values());
  }

  @Test
  void anUnknownCodecIsAUsageErrorNamingTheChoices() {
    int exit = cli().execute("bench", "codecs", "--codecs", "json,yaml");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .contains("unknown codec 'yaml'")
        .contains(
            "json, fastjson2, msgpack, msgpack-compact, kryo, fory, protobuf, avro, thrift, jdk")
        .contains("--codecs");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void anUnknownDataShapeIsAUsageError() {
    int exit = cli().execute("bench", "codecs", "--data", "person");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("unknown data 'person'; choose from all, board, media");
  }

  @Test
  void theStowageCommandFindsTheRealBenchOnTheClassPath() {
    Object bench = cli().getSubcommands().get("bench").getCommand();
    assertThat(bench).isInstanceOf(BenchCommand.class);
    assertThat(cli().getSubcommands().keySet())
        .containsExactly(
            "bench", "serve", "events", "inspect", "scan", "dict", "json", "migrate", "report",
            "help");
    Object report = cli().getSubcommands().get("report").getCommand();
    assertThat(report).isInstanceOf(ReportCommand.class);
  }

  @Test
  void withoutASubcommandItSaysWhichOnesExist() {
    assertThat(cli().execute("bench")).isEqualTo(2);
    assertThat(err.toString())
        .contains("Missing subcommand")
        .contains("codecs")
        .contains("nearcache");
  }

  @Test
  void helpExitsZero() {
    assertThat(cli().execute("bench", "--help")).isZero();
    assertThat(out.toString())
        .contains("Usage: stowage bench")
        .contains("codecs")
        .contains("pipeline")
        .contains("http");

    out.getBuffer().setLength(0);
    assertThat(cli().execute("bench", "codecs", "-h")).isZero();
    assertThat(out.toString())
        .contains("--quick")
        .contains("--out=DIR")
        .contains("--data=DATA")
        .contains("--codecs=CODEC");

    out.getBuffer().setLength(0);
    assertThat(cli().execute("bench", "--version")).isZero();
    assertThat(out.toString()).startsWith("stowage ");
  }

  @Test
  void theSubcommandListGivesEachOneAWholeSentence() {
    assertEachListedCommandHasAWholeSentence("bench");
  }

  @Test
  void theTopLevelListGivesEachCommandAWholeSentence() {
    // 'report' was listed as "... headline ratios first, then per table the": the first line of a
    // description cut where the source broke it.
    assertEachListedCommandHasAWholeSentence();
  }

  @Test
  void noDescriptionParagraphStopsMidSentence() {
    // Each element of a picocli description is a paragraph of its own, wrapped to the terminal:
    // an element that stops mid-sentence shows as a line broken in the middle of the help.
    List<CommandLine> commands = new ArrayList<>();
    collect(cli(), commands);
    assertThat(commands).hasSizeGreaterThan(15);
    for (CommandLine command : commands) {
      String[] paragraphs = command.getCommandSpec().usageMessage().description();
      for (String paragraph : paragraphs) {
        assertThat(paragraph.replace("%n", "").strip())
            .as("a paragraph of '%s --help'", command.getCommandSpec().qualifiedName())
            .matches("(?s).*[.:)]$");
      }
    }
  }

  private static void collect(CommandLine command, List<CommandLine> into) {
    into.add(command);
    command.getSubcommands().values().forEach(sub -> collect(sub, into));
  }

  private void assertEachListedCommandHasAWholeSentence(String... command) {
    String[] help = Arrays.copyOf(command, command.length + 1);
    help[command.length] = "--help";
    out.getBuffer().setLength(0);
    CommandLine cli = cli();
    assertThat(cli.execute(help)).isZero();
    CommandLine listed = cli;
    for (String name : command) {
      listed = listed.getSubcommands().get(name);
    }
    String commands =
        out.toString().substring(out.toString().indexOf("Commands:") + "Commands:".length());
    // An entry starts with its name at two spaces; the lines after it, further in, continue it.
    List<String> entries = new ArrayList<>();
    for (String line : commands.lines().toList()) {
      if (line.startsWith("  ") && !line.startsWith("   ")) {
        entries.add(line.strip());
      } else if (!line.isBlank() && !entries.isEmpty()) {
        entries.set(entries.size() - 1, entries.get(entries.size() - 1) + " " + line.strip());
      }
    }
    assertThat(entries)
        .hasSize(listed.getSubcommands().size())
        .allSatisfy(entry -> assertThat(entry).as("a subcommand's summary").endsWith("."));
  }

  @Test
  void emptyPlansAreRejected() {
    assertThatThrownBy(
            () ->
                new CodecsBench.Plan(
                    true, List.of(), List.of(PayloadVariant.BARE), List.of(DataShape.BOARD)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("choose at least one of the codecs");
  }

  @Test
  void stowagesOwnLogLinesAreOneLineBetweenTheProgressLines() {
    new BenchCommand();
    LogRecord record = new LogRecord(Level.INFO, "cache 'person': values are now compressed");
    record.setLoggerName("dev.stowage.dictionary");
    assertThat(new SimpleFormatter().format(record))
        .isEqualTo(
            "INFO dev.stowage.dictionary: cache 'person': values are now compressed"
                + System.lineSeparator());
  }
}
