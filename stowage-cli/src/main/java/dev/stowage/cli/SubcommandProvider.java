package dev.stowage.cli;

/**
 * A subcommand of {@code stowage} that lives in another module, found at run time with {@link
 * java.util.ServiceLoader}: a module lists its provider in {@code
 * META-INF/services/dev.stowage.cli.SubcommandProvider}, and {@link StowageCli#commandLine()} adds
 * the command when that module is on the class path.
 *
 * <p>This keeps what a subcommand needs off the class path of the others: {@code stowage bench}
 * (stowage-bench-cli) carries JMH, Jedis, Redisson and Spring Data Redis, which {@code inspect},
 * {@code json} and {@code serve} do without.
 */
public interface SubcommandProvider {

  /**
   * A new instance of the subcommand: an object of a class annotated with picocli's
   * {@code @Command}, whose {@code name} is the subcommand's name.
   */
  Object command();
}
