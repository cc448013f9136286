package dev.stowage.cli;

import dev.stowage.cli.inspect.DictCommand;
import dev.stowage.cli.inspect.InspectCommand;
import dev.stowage.cli.inspect.ScanCommand;
import dev.stowage.cli.json.JsonCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code stowage} command. Its subcommands reproduce the seed tables ({@code bench}) and work
 * with the values Stowage stores.
 *
 * <p>Exit codes: 0 on success, 1 when a command fails, 2 for a usage error.
 */
@Command(
    name = "stowage",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    description = "A Redis object cache for the JVM, with the measurements to prove its choices.",
    subcommands = {BenchCommand.class, ServeCommand.class, InspectCommand.class, ScanCommand.class,
        DictCommand.class, JsonCommand.class})
public final class StowageCli implements Runnable {

  @Spec CommandSpec spec;

  /** Prints the usage: the command does nothing without a subcommand. */
  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing subcommand: choose one of " + spec.subcommands().keySet());
  }

  /** A command line for {@code stowage}, with its subcommands, ready to {@code execute(args)}. */
  public static CommandLine commandLine() {
    return new CommandLine(new StowageCli()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  /** Runs the command and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
