package dev.stowage.bench.cli;

import dev.stowage.cli.StowageVersion;
import org.apache.fory.logging.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stowage bench}: the group of commands that reproduce the seed tables. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    description = {
      "Reproduce a seed's table on this machine: the seed's configuration, its peers and Stowage side by side.",
      "Each subcommand prints a table and writes results/<name>.json."
    },
    subcommands = {
      BenchAllCommand.class,
      BenchCodecsCommand.class,
      BenchPipelineCommand.class,
      BenchClientsCommand.class,
      BenchMemoryCommand.class,
      BenchAppCommand.class,
      BenchHttpCommand.class,
      BenchTransportCommand.class,
      BenchNearCacheCommand.class,
      BenchSpringCommand.class,
      BenchClusterCommand.class
    })
final class BenchCommand implements Runnable {

  /** The system property that sets java.util.logging's one-line format. */
  static final String LOG_FORMAT_PROPERTY = "java.util.logging.SimpleFormatter.format";

  /** {@code INFO dev.stowage.dictionary: cache 'person': values are now compressed ...}. */
  static final String LOG_FORMAT = "%4$s %3$s: %5$s%6$s%n";

  @Spec CommandSpec spec;

  BenchCommand() {
    // Fory logs each instance it makes and each class it compiles at INFO, to standard output and
    // through a logger of its own, in the middle of the progress lines: through SLF4J instead, it
    // obeys simplelogger.properties (warnings and errors only).
    LoggerFactory.useSlf4jLogging(true);
    // Stowage's own events (a dictionary learned, say) go through java.util.logging, whose default
    // format takes two lines with a timestamp; one line like the progress reads better between
    // them.
    if (System.getProperty(LOG_FORMAT_PROPERTY) == null) {
      System.setProperty(LOG_FORMAT_PROPERTY, LOG_FORMAT);
    }
  }

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing subcommand: choose one of " + spec.subcommands().keySet());
  }
}
