package dev.stowage.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} process on an ephemeral loopback port, with no persistence and a
 * data directory of its own. Used by tests through {@link WithRedis}, and by the benchmarks and
 * the CLI as the embedded Redis when no URL is given.
 *
 * <p>Starting fails loudly with an {@link IllegalStateException} that carries the server's own
 * output; nothing ever falls back to a shared server or to port 6379.
 *
 * <p>Instances are thread-safe.
 */
public final class RedisServer implements AutoCloseable {
  private static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
  private static final int PORT_ATTEMPTS = 5;
  private static final Set<RedisServer> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> RUNNING.forEach(RedisServer::stop), "stowage-redis-reaper"));
  }

  private final Path binary;
  private final List<String> extraArgs;
  private final Path dir;
  private final int port;
  private Process process;

  private RedisServer(Path binary, List<String> extraArgs, Path dir, int port) {
    this.binary = binary;
    this.extraArgs = extraArgs;
    this.dir = dir;
    this.port = port;
  }

  /**
   * Starts a fresh server on a free port.
   *
   * @param extraArgs extra {@code redis-server} arguments, such as {@code "--maxmemory", "64mb"}
   * @throws IllegalStateException if no server could be started; the message includes its output
   */
  public static RedisServer start(String... extraArgs) {
    Path binary = RedisBinary.locate();
    IllegalStateException last = null;
    for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      Path dir;
      try {
        dir = Files.createTempDirectory("stowage-redis");
      } catch (IOException e) {
        throw new IllegalStateException("cannot create a data directory for redis-server", e);
      }
      RedisServer server = new RedisServer(binary, List.of(extraArgs), dir, freePort());
      try {
        server.launch();
        RUNNING.add(server);
        return server;
      } catch (IllegalStateException e) {
        // Most likely another process took the port between probing and binding; try another.
        last = e;
        server.stop();
        server.deleteDir();
      }
    }
    throw last;
  }

  /** {@code 127.0.0.1}. */
  public String host() {
    return HOST;
  }

  /** The port the server listens on; it never changes across {@link #restart()}. */
  public int port() {
    return port;
  }

  /** The server's URI, such as {@code redis://127.0.0.1:41234}. */
  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  /** The executable this server runs. */
  public Path binary() {
    return binary;
  }

  /** Whether the process is alive. */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Stops the process; connections to it fail until {@link #restart()}. Idempotent. */
  public synchronized void stop() {
    if (process == null) {
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
    process = null;
  }

  /** Stops the server if it runs, then starts it again, empty, on the same port. */
  public synchronized void restart() {
    stop();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      try {
        launch();
        return;
      } catch (IllegalStateException e) {
        stop();
        if (System.nanoTime() > deadline) {
          throw e;
        }
        sleep(100);
      }
    }
  }

  /**
   * Sends one command and returns the raw first line of the reply, such as {@code +OK} or {@code
   * :42}. Meant for setting up tests, not for data.
   */
  public String command(String... args) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(HOST, port), 2000);
      socket.setSoTimeout(10_000);
      StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
      for (String arg : args) {
        byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
        request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
      }
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      return readLine(socket.getInputStream());
    } catch (IOException e) {
      throw new IllegalStateException("redis-server on port " + port + " did not answer: " + e, e);
    }
  }

  /** Removes every key. */
  public void flushAll() {
    String reply = command("FLUSHALL");
    if (!reply.equals("+OK")) {
      throw new IllegalStateException("FLUSHALL answered " + reply);
    }
  }

  /** Stops the server and deletes its data directory. */
  @Override
  public void close() {
    stop();
    RUNNING.remove(this);
    deleteDir();
  }

  @Override
  public String toString() {
    return "RedisServer[" + uri() + ", " + binary + "]";
  }

  private synchronized void launch() {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--save", "",
        "--appendonly", "no", "--dir", dir.toString(), "--protected-mode", "no",
        "--daemonize", "no", "--loglevel", "warning"));
    command.addAll(extraArgs);
    Path log = dir.resolve("redis.log");
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + binary + ": " + e, e);
    }
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server exited with code " + process.exitValue()
            + " on port " + port + ": " + readLog(log));
      }
      if (answersPing()) {
        return;
      }
      sleep(20);
    }
    throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
        + START_TIMEOUT.toSeconds() + " s: " + readLog(log));
  }

  private boolean answersPing() {
    try {
      return command("PING").equals("+PONG");
    } catch (IllegalStateException e) {
      return false;
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      if (c != '\r') {
        line.append((char) c);
      }
    }
    if (c == -1 && line.length() == 0) {
      throw new IOException("connection closed without a reply");
    }
    return line.toString();
  }

  private static String readLog(Path log) {
    try {
      String text = Files.readString(log).strip();
      return text.isEmpty() ? "(no output)" : text;
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private void deleteDir() {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort: a temp directory
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free port on " + HOST, e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for redis-server", e);
    }
  }
}
