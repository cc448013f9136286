package dev.stowage.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} and {@code events} run on stowage-server's class path, with the board and without
 * the benchmarks or a test framework: the class path is the one {@code ./stowage} builds (asked
 * with {@code STOWAGE_DRY_RUN=1}, which prints its java command), its jars are listed from disk,
 * and the commands run as real processes on it. Failsafe runs this after {@code package}, when
 * {@code target/lib} holds the runtime.
 */
class ServerLauncherIntegrationTests {

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
          "assertj");

  private static final Path MODULE =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
  private static final Path SCRIPT = MODULE.getParent().resolve("stowage");

  @TempDir Path temp;

  @Test
  void serveAndEventsRunOnTheServersClassPathWithoutJUnitJmhJedisOrRedisson() throws Exception {
    for (List<String> args : List.of(List.of("serve", "--help"), List.of("events", "--help"))) {
      List<String> command = scriptCommand(args);
      List<Path> jars = classPathJars(command);

      assertThat(jars)
          .as("class path of %s", args)
          .first()
          .isEqualTo(MODULE.resolve("target/stowage-server.jar"));
      assertThat(fileNames(jars))
          .as("class path of %s", args)
          .anyMatch(name -> name.startsWith("picocli-"))
          .anyMatch(name -> name.startsWith("stowage-cli-"))
          .anyMatch(name -> name.startsWith("stowage-board-"))
          .noneMatch(
              name -> FORBIDDEN.stream().anyMatch(name.toLowerCase(Locale.ROOT)::startsWith));
    }

    Run serve = run(scriptCommand(List.of("serve", "--help")));
    assertThat(serve.exit()).as(serve.err()).isZero();
    assertThat(serve.out()).contains("Usage: stowage serve").contains("--port");

    Run events = run(scriptCommand(List.of("events", "--help")));
    assertThat(events.exit()).as(events.err()).isZero();
    assertThat(events.out()).contains("Usage: stowage events").contains("--kafka");
  }

  /**
   * {@code serve} runs with {@code -XX:+ExitOnOutOfMemoryError} (for its supervisor to restart it),
   * before {@code STOWAGE_JAVA_OPTS}, which can still turn it off; the other tools run without.
   */
  @Test
  void serveExitsOnOutOfMemoryErrorAndTheOtherToolsDoNot() throws Exception {
    List<String> serve = scriptCommand(List.of("serve", "--port", "0"));
    assertThat(serve.subList(1, serve.indexOf("-cp")))
        .containsExactly("-XX:+ExitOnOutOfMemoryError");

    List<String> withOptions =
        scriptCommand(List.of("serve"), "-Xmx256m -XX:-ExitOnOutOfMemoryError");
    assertThat(withOptions.subList(1, withOptions.indexOf("-cp")))
        .containsExactly("-XX:+ExitOnOutOfMemoryError", "-Xmx256m", "-XX:-ExitOnOutOfMemoryError");

    for (List<String> args :
        List.of(List.of("events", "--help"), List.of("inspect", "--help"), List.of("--help"))) {
      List<String> command = scriptCommand(args);
      assertThat(command.subList(1, command.indexOf("-cp")))
          .as("JVM options of %s", args)
          .isEmpty();
    }
  }

  /**
   * A {@code serve} JVM whose heap runs out while it serves exits, with the JVM's status 3, instead
   * of answering on: the service is started on the script's command with a 32 MiB heap, and bulk
   * posts of 7.8 MB, six at a time, are sent until it exits. (With {@code
   * -XX:-ExitOnOutOfMemoryError} the same process logs its OutOfMemoryErrors, answers 500 and stays
   * up.)
   */
  @Test
  void aServeJvmWhoseHeapRunsOutExits() throws Exception {
    // An unreachable Redis rather than an embedded one, which the exit would leave running.
    List<String> command =
        scriptCommand(List.of("serve", "--port", "0", "--redis", "redis://127.0.0.1:1"), "-Xmx32m");
    Path out = temp.resolve("serve.out");
    Path err = temp.resolve("serve.err");
    Process serve =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(out).contains("listening on") || !serve.isAlive());
      Matcher url = Pattern.compile("listening on (http://\\S+)").matcher(Files.readString(out));
      assertThat(url.find()).as("%s%s", Files.readString(out), Files.readString(err)).isTrue();
      byte[] bulk = bulkBody();
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpRequest post =
          HttpRequest.newBuilder(URI.create(url.group(1) + "/boards/bulk"))
              .header("Content-Type", "application/json")
              .timeout(Duration.ofSeconds(30))
              .POST(HttpRequest.BodyPublishers.ofByteArray(bulk))
              .build();
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                  sent.add(http.sendAsync(post, HttpResponse.BodyHandlers.discarding()));
                }
                for (CompletableFuture<HttpResponse<Void>> response : sent) {
                  response.handle((answer, failure) -> null).get(60, TimeUnit.SECONDS);
                }
                return !serve.isAlive();
              });
      String output = Files.readString(out) + Files.readString(err);
      assertThat(serve.exitValue()).as(output).isEqualTo(3);
      assertThat(output).contains("Terminating due to java.lang.OutOfMemoryError");
    } finally {
      serve.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  /**
   * A JSON array of 1,000 posts of 850-character fields: 7.8 MB, within the bulk limit of 8 MiB.
   */
  private static byte[] bulkBody() {
    String text = "x".repeat(850);
    StringBuilder post = new StringBuilder("{\"member_id\":1");
    for (String field :
        List.of(
            "title",
            "body",
            "address",
            "country",
            "job",
            "credit",
            "ssn",
            "company",
            "phone_number")) {
      post.append(",\"").append(field).append("\":\"").append(text).append('"');
    }
    post.append('}');
    return ("[" + String.join(",", Collections.nCopies(1000, post)) + "]")
        .getBytes(StandardCharsets.UTF_8);
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
