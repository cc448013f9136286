/**
 * {@code stowage serve} (the board service, with its embedded Redis and Kafka) and {@code stowage
 * events} (the reader of its events): the subcommands that need the board, kept off stowage-cli's
 * class path and joined to the {@code stowage} command at run time through {@link
 * dev.stowage.cli.SubcommandProvider}. Parameters and return values are never {@code null} unless a
 * method says otherwise.
 */
package dev.stowage.server;
