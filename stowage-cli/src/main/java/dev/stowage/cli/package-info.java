/**
 * The {@code stowage} command line (picocli): {@link dev.stowage.cli.StowageCli} and its
 * subcommands. Parameters and return values are never {@code null} unless a method says otherwise.
 */
package dev.stowage.cli;
