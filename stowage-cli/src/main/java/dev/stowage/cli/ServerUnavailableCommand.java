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
 * {@code stowage serve} or {@code stowage events} when the board service is not on the class path:
 * it takes any arguments and says where the command is, so that {@code stowage --help} still lists
 * every subcommand. The real ones, in stowage-server (which carries the board and Spring, which
 * this module must not), replace it through {@link SubcommandProvider}.
 */
@Command
final class ServerUnavailableCommand implements Callable<Integer> {

  /** The subcommands that live in stowage-server. */
  static final String SERVE = "serve";

  static final String EVENTS = "events";

  @Spec CommandSpec spec;

  /** Whatever followed the subcommand, {@code --help} included: none of it can run here. */
  @Unmatched List<String> arguments = new ArrayList<>();

  /** The stand-in for {@code name}, with the description its real command has in the help. */
  static CommandLine commandLine(String name, String description) {
    CommandSpec spec = CommandSpec.forAnnotatedObject(new ServerUnavailableCommand()).name(name);
    spec.usageMessage().description(description);
    return new CommandLine(spec);
  }

  /** What {@code stowage <name> ...} prints when stowage-server is missing. */
  static String message(String name) {
    return "stowage "
        + name
        + ": the board service (module stowage-server) is not on this class path. Run it with"
        + " ./stowage, which adds stowage-server/target/stowage-server.jar and"
        + " stowage-server/target/lib/* for 'serve' and 'events' only, or put those on the class"
        + " path yourself.";
  }

  @Override
  public Integer call() {
    spec.commandLine().getErr().println(message(spec.name()));
    spec.commandLine().getErr().flush();
    return 1;
  }
}
