package dev.stowage.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code stowage bench} or {@code stowage report} when the benchmarks are not on the class path: it
 * takes any arguments and says where the command is, so that {@code stowage --help} still lists
 * every subcommand. The real ones, in stowage-bench-cli, replace it through {@link
 * SubcommandProvider}.
 */
@Command
final class BenchUnavailableCommand implements Callable<Integer> {
  /** The subcommands that live in stowage-bench-cli. */
  static final String BENCH = "bench";

  static final String REPORT = "report";

  /** The stand-in for {@code name}, with the description its real command has in the help. */
  static CommandLine commandLine(String name, String... description) {
    CommandSpec spec = CommandSpec.forAnnotatedObject(new BenchUnavailableCommand()).name(name);
    spec.usageMessage().description(description);
    return new CommandLine(spec);
  }

  /** What {@code stowage <name> ...} prints when the benchmarks are missing. */
  static String message(String name) {
    return "stowage "
        + name
        + ": the benchmarks (module stowage-bench-cli) are not on this class path. Run it with"
        + " ./stowage, which adds stowage-bench-cli/target/stowage-bench-cli.jar and"
        + " stowage-bench-cli/target/lib/* for 'bench' and 'report' only, or put those on the class"
        + " path yourself.";
  }

  @Spec CommandSpec spec;

  /** Whatever followed {@code bench}, {@code --help} included: none of it can run here. */
  @Unmatched List<String> arguments = new ArrayList<>();

  @Override
  public Integer call() {
    spec.commandLine().getErr().println(message(spec.name()));
    spec.commandLine().getErr().flush();
    return 1;
  }
}
