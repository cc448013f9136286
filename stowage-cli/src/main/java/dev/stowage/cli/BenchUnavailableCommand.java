package dev.stowage.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code stowage bench} when the benchmarks are not on the class path: it takes any arguments and
 * says where the benchmarks are, so that {@code stowage --help} still lists every subcommand. The
 * real one, in stowage-bench-cli, replaces it through {@link SubcommandProvider}.
 */
@Command(
    name = StowageCli.BENCH,
    description = {
      "Reproduce a seed's table on this machine: the seed's configuration, its peers and Stowage side by side.",
      "Each subcommand prints a table and writes results/<name>.json."
    })
final class BenchUnavailableCommand implements Callable<Integer> {

  /** What {@code stowage bench ...} prints when the benchmarks are missing. */
  static final String MESSAGE =
      "stowage bench: the benchmarks (module stowage-bench-cli) are not on this class path."
          + " Run them with ./stowage, which adds stowage-bench-cli/target/stowage-bench-cli.jar and"
          + " stowage-bench-cli/target/lib/* for 'bench' only, or put those on the class path yourself.";

  @Spec CommandSpec spec;

  /** Whatever followed {@code bench}, {@code --help} included: none of it can run here. */
  @Unmatched List<String> arguments = new ArrayList<>();

  @Override
  public Integer call() {
    spec.commandLine().getErr().println(MESSAGE);
    spec.commandLine().getErr().flush();
    return 1;
  }
}
