package dev.stowage.server;

import dev.stowage.cli.SubcommandProvider;

/** Joins {@code events} to the {@code stowage} command when this module is on the class path. */
public final class EventsSubcommandProvider implements SubcommandProvider {
  @Override
  public Object command() {
    return new EventsCommand();
  }
}
