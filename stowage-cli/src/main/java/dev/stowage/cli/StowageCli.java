package dev.stowage.cli;

import dev.stowage.cli.inspect.DictCommand;
import dev.stowage.cli.inspect.InspectCommand;
import dev.stowage.cli.inspect.ScanCommand;
import dev.stowage.cli.json.JsonCommand;
import dev.stowage.cli.migrate.MigrateCommand;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code stowage} command. Its subcommands reproduce the seed tables ({@code bench}) and work
 * with the values Stowage stores.
 *
 * <p>{@code inspect}, {@code scan}, {@code dict}, {@code json} and {@code migrate} are this
 * module's. {@code bench} lives in stowage-bench-cli, with JMH and the peers it measures, and
 * {@code serve} and {@code events} in stowage-server, with the board service (Spring WebFlux,
 * R2DBC, H2, MongoDB, Kafka), which this module's class path must not hold; they are found at run
 * time through {@link SubcommandProvider}. Without their module on the class path, each is a
 * stand-in that says where it is.
 *
 * <p>Exit codes: 0 on success, 1 when a command fails, 2 for a usage error.
 */
@Command(
    name = "stowage",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    description = "A Redis object cache for the JVM, with the measurements to prove its choices.")
public final class StowageCli implements Runnable {

  @Spec CommandSpec spec;

  /** Prints the usage: the command does nothing without a subcommand. */
  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing subcommand: choose one of " + spec.subcommands().keySet());
  }

  /**
   * A command line for {@code stowage}, with its subcommands, ready to {@code execute(args)}: this
   * module's, and those of every {@link SubcommandProvider} on the class path.
   */
  public static CommandLine commandLine() {
    Map<String, CommandLine> provided = new LinkedHashMap<>();
    for (SubcommandProvider provider :
        ServiceLoader.load(SubcommandProvider.class, StowageCli.class.getClassLoader())) {
      CommandLine command = new CommandLine(provider.command());
      provided.putIfAbsent(command.getCommandName(), command);
    }
    CommandLine cli = new CommandLine(new StowageCli());
    addOrStandIn(
        cli,
        provided,
        UnavailableCommand.Home.BENCHMARKS,
        "bench",
        "Reproduce a seed's table on this machine: the seed's configuration, its peers and"
            + " Stowage side by side.",
        "Each subcommand prints a table and writes results/<name>.json.");
    addOrStandIn(
        cli,
        provided,
        UnavailableCommand.Home.SERVER,
        "serve",
        "Run the board service (the first seed's API) until interrupted.");
    addOrStandIn(
        cli,
        provided,
        UnavailableCommand.Home.SERVER,
        "events",
        "Print the board's events from Kafka, one JSON line each, until interrupted.");
    cli.addSubcommand(new InspectCommand());
    cli.addSubcommand(new ScanCommand());
    cli.addSubcommand(new DictCommand());
    cli.addSubcommand(new JsonCommand());
    cli.addSubcommand(new MigrateCommand());
    addOrStandIn(
        cli,
        provided,
        UnavailableCommand.Home.BENCHMARKS,
        "report",
        "Build one self-contained HTML page from the results of stowage bench.");
    provided.values().forEach(cli::addSubcommand);
    // `stowage help <command>`: the command's own usage, as `stowage <command> --help` prints it.
    cli.addSubcommand(new CommandLine.HelpCommand());
    // After the subcommands: picocli applies the setting to those already added.
    return cli.setCaseInsensitiveEnumValuesAllowed(true);
  }

  /**
   * Adds the provided command {@code name}, or, when its module is not on the class path, a
   * stand-in with its description that says where it is.
   */
  private static void addOrStandIn(
      CommandLine cli,
      Map<String, CommandLine> provided,
      UnavailableCommand.Home home,
      String name,
      String... description) {
    CommandLine command = provided.remove(name);
    cli.addSubcommand(
        command != null ? command : UnavailableCommand.commandLine(home, name, description));
  }

  /** Runs the command and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
