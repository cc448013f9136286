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
 * A subcommand whose module is not on this class path ({@code bench} and {@code report} live in
 * stowage-bench-cli, {@code serve} and {@code events} in stowage-server, which carry what this
 * module's class path must not): it takes any arguments and says where the command is, so that
 * {@code stowage --help} still lists every subcommand. The real ones replace it through {@link
 * SubcommandProvider}.
 */
@Command
final class UnavailableCommand implements Callable<Integer> {
  /** Where a command lives: what its module holds, the module, and the commands it adds. */
  enum Home {
    BENCHMARKS("the benchmarks", "are", "stowage-bench-cli", "'bench' and 'report'"),
    SERVER("the board service", "is", "stowage-server", "'serve' and 'events'");

    private final String what;
    private final String verb;
    private final String module;
    private final String commands;

    Home(String what, String verb, String module, String commands) {
      this.what = what;
      this.verb = verb;
      this.module = module;
      this.commands = commands;
    }

    /** What {@code stowage <name> ...} prints when this module is missing. */
    String message(String name) {
      return "stowage "
          + name
          + ": "
          + what
          + " (module "
          + module
          + ") "
          + verb
          + " not on this class path. Run it with ./stowage, which adds "
          + module
          + "/target/"
          + module
          + ".jar and "
          + module
          + "/target/lib/* for "
          + commands
          + " only, or put those on the class path yourself.";
    }
  }

  private final Home home;

  @Spec CommandSpec spec;

  /** Whatever followed the subcommand, {@code --help} included: none of it can run here. */
  @Unmatched List<String> arguments = new ArrayList<>();

  private UnavailableCommand(Home home) {
    this.home = home;
  }

  /** The stand-in for {@code name}, with the description its real command has in the help. */
  static CommandLine commandLine(Home home, String name, String... description) {
    CommandSpec spec = CommandSpec.forAnnotatedObject(new UnavailableCommand(home)).name(name);
    spec.usageMessage().description(description);
    return new CommandLine(spec);
  }

  @Override
  public Integer call() {
    spec.commandLine().getErr().println(home.message(spec.name()));
    spec.commandLine().getErr().flush();
    return 1;
  }
}
