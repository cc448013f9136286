/**
 * {@code stowage bench} and its subcommands (picocli), which run stowage-bench's workloads. They
 * join the {@code stowage} command through {@link dev.stowage.cli.SubcommandProvider}, so that only
 * {@code bench} puts JMH, Jedis, Redisson and Spring Data Redis on the class path. Parameters and
 * return values are never {@code null} unless a method says otherwise.
 */
package dev.stowage.bench.cli;
