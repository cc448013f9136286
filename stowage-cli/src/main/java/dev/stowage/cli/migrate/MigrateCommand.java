package dev.stowage.cli.migrate;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stowage migrate}: the one-off steps of moving a Redis to Stowage; see its subcommands. */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = "One-off steps of moving a Redis to Stowage (docs/MIGRATION.md).",
    subcommands = JdkKeysCommand.class)
public final class MigrateCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing subcommand: choose one of " + spec.subcommands().keySet());
  }
}
