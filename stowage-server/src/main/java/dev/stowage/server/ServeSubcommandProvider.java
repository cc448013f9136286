package dev.stowage.server;

import dev.stowage.cli.SubcommandProvider;

/** Joins {@code serve} to the {@code stowage} command when this module is on the class path. */
public final class ServeSubcommandProvider implements SubcommandProvider {
  @Override
  public Object command() {
    return new ServeCommand();
  }
}
