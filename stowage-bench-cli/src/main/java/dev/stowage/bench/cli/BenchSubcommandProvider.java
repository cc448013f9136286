package dev.stowage.bench.cli;

import dev.stowage.cli.SubcommandProvider;

/**
 * Gives {@code stowage} its {@code bench} subcommand when this module is on the class path (listed
 * in {@code META-INF/services/dev.stowage.cli.SubcommandProvider}).
 */
public final class BenchSubcommandProvider implements SubcommandProvider {

  /** Made by {@link java.util.ServiceLoader}. */
  public BenchSubcommandProvider() {}

  @Override
  public Object command() {
    return new BenchCommand();
  }
}
