package dev.stowage.board;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The board service in a child JVM on this JVM's class path ({@link BoardApplication} with Spring
 * properties as arguments), so that a test can SIGKILL it mid-load and start another on the same
 * port. Its output goes to a log file whose end a failed start shows.
 */
final class BoardChildProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;

  private BoardChildProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts the service with {@code properties} ({@code name=value}) and waits until it answers. */
  static BoardChildProcess start(int port, List<String> properties, Path log) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                // C1 only, like the test JVMs (test.jit.args): the child lives seconds.
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                BoardApplication.class.getName(),
                "--server.port=" + port,
                "--server.address=127.0.0.1"));
    properties.forEach(property -> command.add("--" + property));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    process.getOutputStream().close();
    BoardChildProcess child = new BoardChildProcess(process, port, log);
    HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    try {
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(200))
          .failFast("the board's JVM exited; see " + log, () -> !process.isAlive())
          .ignoreExceptions()
          .until(
              () ->
                  probe
                          .send(
                              HttpRequest.newBuilder(
                                      URI.create(child.url() + "/boards?page=1&size=1"))
                                  .build(),
                              HttpResponse.BodyHandlers.discarding())
                          .statusCode()
                      == 200);
    } catch (RuntimeException e) {
      child.kill();
      throw new IllegalStateException(e.getMessage() + "\n" + Files.readString(log), e);
    }
    return child;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  /** SIGKILL: nothing flushed, no shutdown hook. */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    kill();
  }

  @Override
  public String toString() {
    return "BoardChildProcess[" + url() + ", log " + log + "]";
  }
}
