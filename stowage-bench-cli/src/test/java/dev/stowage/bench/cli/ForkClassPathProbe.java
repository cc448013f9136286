package dev.stowage.bench.cli;

import dev.stowage.bench.ForkClassPath;

/**
 * Prints the class path JMH's forks would get in this JVM; run by {@link
 * LauncherBenchClassPathIntegrationTests}.
 */
final class ForkClassPathProbe {

  private ForkClassPathProbe() {}

  public static void main(String[] args) {
    System.out.println(ForkClassPath.forForks());
  }
}
