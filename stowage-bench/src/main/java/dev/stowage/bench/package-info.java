/**
 * The benchmark results model shared by every {@code stowage bench} subcommand: the results
 * document written to {@code results/<bench>.json}, the terminal table with ratio columns, and
 * progress reporting for long runs. Parameters and return values are never {@code null} unless a
 * method says otherwise.
 */
package dev.stowage.bench;
