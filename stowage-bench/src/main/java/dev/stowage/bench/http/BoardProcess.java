package dev.stowage.bench.http;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.board.BoardApplication;
import dev.stowage.board.BoardMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The board service in a JVM of its own: a child {@code java} process on this JVM's class path
 * running {@link BoardApplication} on a free loopback port, with the database of record an
 * in-memory H2 of its own. Its output goes to a log file; when it fails to start, the exception
 * carries the log's last lines.
 *
 * <p>Every child still running when this JVM exits is killed by a shutdown hook. Thread-safe.
 */
public final class BoardProcess implements AutoCloseable {

  /** How long a child may take to answer its first request. */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofMinutes(2);

  private static final int LOG_LINES = 40;
  private static final Pattern STACK_FRAME = Pattern.compile("^\\s+(at |\\.\\.\\. \\d+ more)");
  private static final Set<BoardProcess> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(BoardProcess::close), "stowage-board-reaper"));
  }

  private final BoardMode mode;
  private final Process process;
  private final Path log;
  private final int port;

  private BoardProcess(BoardMode mode, Process process, Path log, int port) {
    this.mode = mode;
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /**
   * Starts the service in {@code mode} against {@code redisUri} and returns once it answers {@code
   * GET /boards}.
   *
   * @param jvmOptions options for the child JVM, such as {@code -Xmx2g}; may be empty
   * @param log the file the child's output is written to (replaced)
   * @throws BenchmarkRunException if the child exits or does not answer within {@code
   *     startTimeout}; the message includes the last lines of its log
   */
  public static BoardProcess start(
      BoardMode mode, String redisUri, List<String> jvmOptions, Path log, Duration startTimeout) {
    return start(mode, redisUri, jvmOptions, List.of(), log, startTimeout);
  }

  /**
   * As {@link #start(BoardMode, String, List, Path, Duration)}, with more application arguments
   * such as {@code --stowage.board.tcp.port=7070}.
   */
  public static BoardProcess start(
      BoardMode mode,
      String redisUri,
      List<String> jvmOptions,
      List<String> applicationArguments,
      Path log,
      Duration startTimeout) {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(applicationArguments, "applicationArguments");
    Objects.requireNonNull(redisUri, "redisUri");
    Objects.requireNonNull(log, "log");
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(BoardApplication.class.getName());
    command.add("--server.port=" + port);
    command.add("--server.address=127.0.0.1");
    command.add("--stowage.board.redis=" + redisUri);
    command.add("--stowage.board.mode=" + mode.label());
    command.addAll(applicationArguments);
    Process process;
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
              .start();
      process.getOutputStream().close();
    } catch (IOException e) {
      throw new BenchmarkRunException(
          "cannot start the board service (" + mode.label() + "): " + e.getMessage(), e);
    }
    BoardProcess board = new BoardProcess(mode, process, log, port);
    RUNNING.add(board);
    try {
      board.awaitReady(startTimeout);
      return board;
    } catch (RuntimeException e) {
      board.close();
      throw e;
    }
  }

  private void awaitReady(Duration timeout) {
    HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url() + "/boards?page=1&size=1"))
            .timeout(Duration.ofSeconds(5))
            .build();
    long deadline = System.nanoTime() + timeout.toNanos();
    String lastAnswer = "no answer";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new BenchmarkRunException(
            "the board service ("
                + mode.label()
                + ") exited with status "
                + process.exitValue()
                + " before answering; last lines of "
                + log
                + ":\n"
                + lastLogLines(),
            null);
      }
      try {
        HttpResponse<Void> response = probe.send(request, HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
        lastAnswer = "HTTP " + response.statusCode();
      } catch (IOException e) {
        lastAnswer = e.getClass().getSimpleName();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BenchmarkRunException("interrupted while waiting for the board service", e);
      }
      sleep(200);
    }
    throw new BenchmarkRunException(
        "the board service ("
            + mode.label()
            + ") did not answer GET /boards within "
            + timeout.toSeconds()
            + "s (last: "
            + lastAnswer
            + "); last lines of "
            + log
            + ":\n"
            + lastLogLines(),
        null);
  }

  /** {@code http://127.0.0.1:port}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** The port the service listens on. */
  public int port() {
    return port;
  }

  /** The child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Whether the child is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The file holding the child's output. */
  public Path log() {
    return log;
  }

  /**
   * The last lines the child wrote, without stack frames (so the exception messages and their
   * causes show), or a note saying the log cannot be read.
   */
  public String lastLogLines() {
    try {
      List<String> lines =
          Files.readAllLines(log, StandardCharsets.UTF_8).stream()
              .filter(line -> !STACK_FRAME.matcher(line).find())
              .toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + log + ": " + e.getMessage() + ")";
    }
  }

  /** Stops the child (SIGTERM, then SIGKILL after 10 s) and waits for it. Idempotent. */
  @Override
  public void close() {
    RUNNING.remove(this);
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private static String javaExecutable() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElseGet(() -> Paths.get(System.getProperty("java.home"), "bin", "java").toString());
  }

  /**
   * A loopback port that was free a moment ago, for a child to bind.
   *
   * @throws BenchmarkRunException if no port can be had
   */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new BenchmarkRunException("cannot find a free port for the board service", e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkRunException("interrupted while waiting for the board service", e);
    }
  }
}
