package dev.stowage.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools run on a class path without the benchmarks or a test framework: the class path is the
 * one {@code ./stowage} builds (asked with {@code STOWAGE_DRY_RUN=1}, which prints its java
 * command), its jars are listed from disk, and the commands run as real processes on it. Failsafe
 * runs this after {@code package}, when {@code target/lib} holds the runtime.
 */
class LauncherClassPathIntegrationTests {

  /** File name prefixes of jars that must not ship with the tools. */
  private static final List<String> FORBIDDEN =
      List.of(
          "junit",
          "opentest4j",
          "jmh",
          "jedis",
          "redisson",
          "stowage-bench",
          "stowage-testkit",
          "archunit",
          "assertj",
          "spring-",
          "stowage-board",
          "reactor-netty",
          "r2dbc",
          "h2-",
          "mongodb",
          "kafka");

  private static final Path MODULE =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
  private static final Path SCRIPT = MODULE.getParent().resolve("stowage");

  @TempDir Path temp;

  @Test
  void everyToolRunsOnAClassPathWithoutJUnitJmhJedisOrRedisson() throws Exception {
    for (List<String> args :
        List.of(
            List.of("inspect", "--help"),
            List.of("scan", "--help"),
            List.of("dict", "--help"),
            List.of("json", "--help"),
            List.of("--help"),
            List.of("--version"))) {
      List<String> command = scriptCommand(args);
      List<Path> jars = classPathJars(command);

      assertThat(jars)
          .as("class path of %s", args)
          .first()
          .isEqualTo(MODULE.resolve("target/stowage-cli.jar"));
      assertThat(fileNames(jars))
          .as("class path of %s", args)
          .anyMatch(name -> name.startsWith("picocli-"))
          .anyMatch(name -> name.startsWith("stowage-core-"))
          .noneMatch(
              name -> FORBIDDEN.stream().anyMatch(name.toLowerCase(Locale.ROOT)::startsWith));
    }

    Run inspect = run(scriptCommand(List.of("inspect", "--help")));
    assertThat(inspect.exit()).as(inspect.err()).isZero();
    assertThat(inspect.out()).contains("Usage: stowage inspect").contains("--redis");

    Run json = run(scriptCommand(List.of("json", "--help")));
    assertThat(json.exit()).as(json.err()).isZero();
    assertThat(json.out()).contains("Usage: stowage json").contains("validate").contains("format");

    Run help = run(scriptCommand(List.of("--help")));
    assertThat(help.exit()).as(help.err()).isZero();
    assertThat(help.out())
        .contains("bench")
        .contains("serve")
        .contains("inspect")
        .contains("scan")
        .contains("dict")
        .contains("json");
  }

  @Test
  void theForbiddenClassesAreNotThereAtAll() throws Exception {
    // Not only the jar names: none of their classes loads in a JVM on the tools' class path.
    List<String> command = new ArrayList<>(scriptCommand(List.of("inspect", "--help")));
    Path probe = temp.resolve("Probe.java");
    Files.writeString(
        probe,
        """
        public class Probe {
          public static void main(String[] args) {
            for (String name : args) {
              try {
                Class.forName(name, false, Probe.class.getClassLoader());
                System.out.println("found " + name);
              } catch (ClassNotFoundException e) {
                System.out.println("absent " + name);
              }
            }
          }
        }
        """);
    int classPath = command.indexOf("-cp") + 1;
    List<String> probeCommand =
        List.of(
            command.get(0),
            "-cp",
            command.get(classPath),
            probe.toString(),
            "org.junit.jupiter.api.Test",
            "org.opentest4j.AssertionFailedError",
            "org.openjdk.jmh.runner.Runner",
            "redis.clients.jedis.Jedis",
            "org.redisson.Redisson",
            "dev.stowage.bench.ResultsDocument",
            "org.springframework.context.ApplicationContext",
            "reactor.netty.http.server.HttpServer",
            "dev.stowage.board.BoardServer",
            "dev.stowage.cli.inspect.InspectCommand");
    Run run = run(probeCommand);

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out().lines())
        .containsExactly(
            "absent org.junit.jupiter.api.Test",
            "absent org.opentest4j.AssertionFailedError",
            "absent org.openjdk.jmh.runner.Runner",
            "absent redis.clients.jedis.Jedis",
            "absent org.redisson.Redisson",
            "absent dev.stowage.bench.ResultsDocument",
            "absent org.springframework.context.ApplicationContext",
            "absent reactor.netty.http.server.HttpServer",
            "absent dev.stowage.board.BoardServer",
            "found dev.stowage.cli.inspect.InspectCommand");
  }

  @Test
  void benchOnTheToolsClassPathSaysWhereTheBenchmarksAre() throws Exception {
    List<String> command = new ArrayList<>(scriptCommand(List.of("inspect")));
    command.remove(command.size() - 1);
    command.addAll(List.of("bench", "codecs", "--quick"));
    Run run = run(command);

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .contains("stowage-bench-cli")
        .contains("not on this class path")
        .contains("./stowage");
  }

  /** {@code help <command>} runs on the class path of the command it explains. */
  @Test
  void helpOfACommandRunsOnThatCommandsClassPath() throws Exception {
    for (List<String> args :
        List.of(
            List.of("help", "bench"),
            List.of("help", "report"),
            List.of("help", "serve"),
            List.of("help", "inspect"),
            List.of("help"))) {
      List<String> command = scriptCommand(args);
      String classPath = command.get(command.indexOf("-cp") + 1);
      String expected =
          switch (args.size() == 1 ? "" : args.get(1)) {
            case "bench", "report" -> "stowage-bench-cli.jar";
            case "serve" -> "stowage-server.jar";
            default -> "stowage-cli.jar";
          };
      assertThat(classPath).as(String.join(" ", args)).contains("/" + expected + ":");
    }
  }

  /**
   * {@code serve} and {@code events} are stowage-server's: on the tools' class path they say where
   * they are, and run with no JVM option of serve's.
   */
  @Test
  void serveAndEventsOnTheToolsClassPathSayWhereTheServerIs() throws Exception {
    for (String subcommand : List.of("serve", "events")) {
      List<String> command = new ArrayList<>(scriptCommand(List.of("inspect")));
      assertThat(command.subList(1, command.indexOf("-cp"))).isEmpty();
      command.remove(command.size() - 1);
      command.addAll(List.of(subcommand, "--help"));
      Run run = run(command);

      assertThat(run.exit()).as(subcommand).isEqualTo(1);
      assertThat(run.err())
          .contains("stowage " + subcommand)
          .contains("stowage-server")
          .contains("not on this class path");
    }
  }

  /**
   * The java command {@code ./stowage args} runs, one argument an element, without building
   * anything.
   */
  private static List<String> scriptCommand(List<String> args) throws Exception {
    return scriptCommand(args, null);
  }

  /** The same, with {@code STOWAGE_JAVA_OPTS} set to {@code javaOptions} (unset when null). */
  private static List<String> scriptCommand(List<String> args, String javaOptions)
      throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("STOWAGE_DRY_RUN", "1");
    if (javaOptions == null) {
      builder.environment().remove("STOWAGE_JAVA_OPTS");
    } else {
      builder.environment().put("STOWAGE_JAVA_OPTS", javaOptions);
    }
    Run run = run(builder);
    assertThat(run.exit()).as(run.err()).isZero();
    List<String> printed = run.out().lines().toList();
    assertThat(printed)
        .endsWith(
            Stream.concat(Stream.of("dev.stowage.cli.StowageCli"), args.stream())
                .toArray(String[]::new));
    return printed;
  }

  /**
   * The jars of the command's {@code -cp}, with {@code dir/*} expanded as the java launcher does.
   */
  static List<Path> classPathJars(List<String> command) throws IOException {
    String classPath = command.get(command.indexOf("-cp") + 1);
    List<Path> jars = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.endsWith("/*")) {
        Path dir = Path.of(entry.substring(0, entry.length() - 2));
        assertThat(dir).isDirectory();
        try (Stream<Path> files = Files.list(dir)) {
          files
              .filter(
                  file -> file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar"))
              .sorted()
              .forEach(jars::add);
        }
      } else {
        Path jar = Path.of(entry);
        assertThat(jar).isRegularFile();
        jars.add(jar);
      }
    }
    return jars;
  }

  private static List<String> fileNames(List<Path> jars) {
    return jars.stream().map(jar -> jar.getFileName().toString()).toList();
  }

  record Run(int exit, String out, String err) {}

  private Run run(List<String> command) throws Exception {
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
