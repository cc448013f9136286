package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code ./stowage bench ...} runs on this module's class path (asked of the script with {@code
 * STOWAGE_DRY_RUN=1}), as a real process: the bench subcommands are found there, and JMH's forked
 * JVMs still get the narrow class path stowage-bench recorded. Failsafe runs this after {@code
 * package}, when {@code target/lib} holds the runtime.
 */
class LauncherBenchClassPathIntegrationTests {

  private static final Path MODULE =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
  private static final Path SCRIPT = MODULE.getParent().resolve("stowage");

  @Test
  void benchRunsOnThisModulesClassPathOnly() throws Exception {
    List<String> command = scriptCommand(List.of("bench", "--help"));
    String classPath = command.get(command.indexOf("-cp") + 1);
    assertThat(classPath.split(File.pathSeparator))
        .containsExactly(
            MODULE.resolve("target/stowage-bench-cli.jar").toString(),
            MODULE.resolve("target/lib").toString() + "/*");
    try (Stream<Path> lib = Files.list(MODULE.resolve("target/lib"))) {
      assertThat(lib.map(jar -> jar.getFileName().toString()))
          .anyMatch(name -> name.matches("stowage-cli-\\d.*\\.jar"));
    }

    Run help = run(command);
    assertThat(help.exit()).as(help.err()).isZero();
    assertThat(help.out())
        .contains("Usage: stowage bench")
        .contains("codecs")
        .contains("pipeline")
        .contains("clients")
        .contains("memory")
        .contains("app")
        .contains("http")
        .contains("transport")
        .contains("nearcache");

    Run codecs = run(scriptCommand(List.of("bench", "codecs", "--help")));
    assertThat(codecs.exit()).as(codecs.err()).isZero();
    assertThat(codecs.out())
        .contains("Usage: stowage bench codecs")
        .contains("--quick")
        .contains("--codecs=CODEC");

    Run unknown = run(scriptCommand(List.of("bench", "codecs", "--codecs", "yaml")));
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown codec 'yaml'");
  }

  @Test
  void jmhForksGetOnlyTheBenchmarksJars() throws Exception {
    // ForkClassPath narrows java.class.path to stowage-bench's recorded runtime when every one of
    // those jars is on it by file name, as it must be in target/lib; asked in a JVM on the script's
    // class path (plus this module's test classes, for ForkClassPathProbe).
    List<String> command = scriptCommand(List.of("bench", "--help"));
    String classPath =
        command.get(command.indexOf("-cp") + 1)
            + File.pathSeparator
            + MODULE.resolve("target/test-classes");
    Run probe = run(List.of(command.get(0), "-cp", classPath, ForkClassPathProbe.class.getName()));
    assertThat(probe.exit()).as(probe.err()).isZero();

    List<String> forks =
        Arrays.stream(probe.out().strip().split(File.pathSeparator))
            .map(entry -> Path.of(entry).getFileName().toString())
            .toList();
    assertThat(forks)
        .anyMatch(name -> name.matches("stowage-bench-\\d.*\\.jar"))
        .anyMatch(name -> name.matches("stowage-core-\\d.*\\.jar"))
        .anyMatch(name -> name.startsWith("jmh-core-"))
        .noneMatch(
            name ->
                name.startsWith("stowage-cli-")
                    || name.startsWith("stowage-bench-cli")
                    || name.matches("stowage-board-\\d.*")
                    || name.startsWith("picocli-")
                    || name.startsWith("spring-boot-"));
  }

  /**
   * The java command {@code ./stowage args} runs, one argument an element, without building
   * anything.
   */
  private static List<String> scriptCommand(List<String> args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("STOWAGE_DRY_RUN", "1");
    builder.environment().remove("STOWAGE_JAVA_OPTS");
    Run run = run(builder);
    assertThat(run.exit()).as(run.err()).isZero();
    List<String> printed = run.out().lines().toList();
    assertThat(printed)
        .endsWith(
            Stream.concat(Stream.of("dev.stowage.cli.StowageCli"), args.stream())
                .toArray(String[]::new));
    return printed;
  }

  record Run(int exit, String out, String err) {}

  private static Run run(List<String> command) throws Exception {
    return run(new ProcessBuilder(command));
  }

  private static Run run(ProcessBuilder builder) throws Exception {
    Path out = Files.createTempFile("stowage-launcher", ".out");
    Path err = Files.createTempFile("stowage-launcher", ".err");
    try {
      Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      process.getOutputStream().close();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("timed out: " + builder.command());
      }
      return new Run(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
