package dev.stowage.embedded;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
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
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;

/**
 * A real {@code redis-server} process on an ephemeral loopback port, with no persistence and a data
 * directory of its own. Used by tests through stowage-testkit's {@code @WithRedis}, and by the
 * benchmarks and the CLI as the embedded Redis when no URL is given. {@link #startTls} starts one
 * that speaks only TLS and wants client certificates; {@link RedisSentinelSet} starts sentinels
 * with it, and {@link RedisClusterSet} the nodes of a cluster.
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
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(RedisServer::stop), "stowage-redis-reaper"));
  }

  private static final String SENTINEL_CONFIG = "sentinel.conf";

  /** A cluster node's bus listens on its port plus this, so both must be free and below 65536. */
  private static final int CLUSTER_BUS_OFFSET = 10_000;

  private static final int PORT_PROBES = 200;

  private final Path binary;
  private final List<String> extraArgs;
  private final Path dir;
  private final int port;

  /**
   * Null for a plain server; otherwise it listens only on a TLS port and wants client certificates.
   */
  private final @Nullable TlsCertificates tls;

  private final boolean sentinel;

  /**
   * Whether it runs with {@code --cluster-enabled yes} and a {@code nodes.conf} in its directory.
   */
  private final boolean cluster;

  private @Nullable Process process;

  private RedisServer(
      Path binary,
      List<String> extraArgs,
      Path dir,
      int port,
      @Nullable TlsCertificates tls,
      boolean sentinel,
      boolean cluster) {
    this.binary = binary;
    this.extraArgs = extraArgs;
    this.dir = dir;
    this.port = port;
    this.tls = tls;
    this.sentinel = sentinel;
    this.cluster = cluster;
  }

  /**
   * Starts a fresh server on a free port.
   *
   * @param extraArgs extra {@code redis-server} arguments, such as {@code "--maxmemory", "64mb"}
   * @throws IllegalStateException if no server could be started; the message includes its output
   */
  public static RedisServer start(String... extraArgs) {
    return start(null, null, false, extraArgs);
  }

  /**
   * Starts a fresh server that speaks only TLS ({@code --port 0}, {@code --tls-port} on a free
   * port) with {@code certificates}' server certificate, and refuses clients that present no
   * certificate signed by their authority ({@code --tls-auth-clients yes}). Its {@link #uri()} is
   * {@code rediss://127.0.0.1:port}, and {@link #command} and {@link #reply} connect with the
   * client certificate.
   *
   * @param extraArgs extra {@code redis-server} arguments
   * @throws IllegalStateException if no server could be started, as with a {@code redis-server}
   *     built without TLS; the message includes its output
   */
  public static RedisServer startTls(TlsCertificates certificates, String... extraArgs) {
    return start(Objects.requireNonNull(certificates, "certificates"), null, false, extraArgs);
  }

  /**
   * Starts {@code redis-server sentinel.conf --sentinel}, with {@code config} as the first lines of
   * that file (Sentinel rewrites it as its state changes).
   */
  static RedisServer startSentinel(String config, String... extraArgs) {
    return start(null, Objects.requireNonNull(config, "config"), false, extraArgs);
  }

  /**
   * Starts a cluster node: {@code --cluster-enabled yes} with its {@code nodes.conf} in the
   * server's directory (kept across {@link #restart()}, so a restarted node rejoins as itself), on
   * a free port whose cluster bus port (the port plus 10000) is free too. It knows no other node
   * and serves no slot until {@link RedisClusterSet} joins it. With {@code tls}, the node speaks
   * only TLS to clients, to the other nodes on the cluster bus ({@code --tls-cluster yes}) and to
   * its replicas ({@code --tls-replication yes}).
   */
  static RedisServer startClusterNode(@Nullable TlsCertificates tls, String... extraArgs) {
    return start(tls, null, true, extraArgs);
  }

  private static RedisServer start(
      @Nullable TlsCertificates tls,
      @Nullable String sentinelConfig,
      boolean cluster,
      String... extraArgs) {
    Path binary = RedisBinary.locate();
    IllegalStateException last = null;
    for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      Path dir;
      try {
        dir = Files.createTempDirectory("stowage-redis");
        if (sentinelConfig != null) {
          Files.writeString(dir.resolve(SENTINEL_CONFIG), sentinelConfig);
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot create a data directory for redis-server", e);
      }
      RedisServer server =
          new RedisServer(
              binary,
              List.of(extraArgs),
              dir,
              cluster ? freeClusterPort() : freePort(),
              tls,
              sentinelConfig != null,
              cluster);
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

  /**
   * The server's URI, such as {@code redis://127.0.0.1:41234}, or {@code rediss://127.0.0.1:41234}
   * for a server started with {@link #startTls}.
   */
  public String uri() {
    return (tls == null ? "redis://" : "rediss://") + HOST + ":" + port;
  }

  /** Whether this server speaks only TLS: it was started with {@link #startTls}. */
  public boolean isTls() {
    return tls != null;
  }

  /** The executable this server runs. */
  public Path binary() {
    return binary;
  }

  /** Whether the process is alive. */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * The operating system's id of the process, while it runs (between a {@link #stop()}, {@link
   * #kill()} or {@link #close()} and the next {@link #restart()}, there is none).
   */
  public synchronized OptionalLong pid() {
    return process != null && process.isAlive()
        ? OptionalLong.of(process.pid())
        : OptionalLong.empty();
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

  /**
   * Kills the process at once ({@code SIGKILL}: no clean shutdown, no goodbye to clients), as a
   * crash or an out-of-memory killer would; connections to it fail until {@link #restart()}.
   * Idempotent.
   */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    try {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /**
   * Stops the server if it runs, then starts it again, empty, on the same port. A sentinel comes
   * back with the configuration file it rewrote, so it still knows its master.
   */
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
    try (Socket socket = send(args)) {
      return readLine(socket.getInputStream());
    } catch (IOException e) {
      throw new IllegalStateException("redis-server on port " + port + " did not answer: " + e, e);
    }
  }

  /**
   * Sends one command and returns its whole reply: a {@code String} for a simple or bulk string
   * (read as UTF-8), a {@code Long} for an integer, a {@code List} for an array, and {@code null}
   * for a null reply. Meant for setting up and checking tests, such as reading {@code GET k} or
   * {@code SENTINEL MASTER mymaster}.
   *
   * @throws IllegalStateException if the server cannot be reached or answers with an error; the
   *     message holds the error reply, such as {@code -NOPERM ...}
   */
  public @Nullable Object reply(String... args) {
    try (Socket socket = send(args)) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      return readReply(in, String.join(" ", args));
    } catch (IOException e) {
      throw new IllegalStateException("redis-server on port " + port + " did not answer: " + e, e);
    }
  }

  /**
   * Sends {@code commands} one after the other on one connection and returns their replies, read as
   * {@link #reply} reads one: for what holds per connection, such as {@code READONLY} before
   * reading from a cluster replica, or {@code ASKING} before reading a slot being imported.
   *
   * @throws IllegalStateException if the server cannot be reached or answers a command with an
   *     error; the message holds the error reply
   */
  public List<@Nullable Object> replies(List<List<String>> commands) {
    List<@Nullable Object> replies = new ArrayList<>(commands.size());
    if (commands.isEmpty()) {
      return replies;
    }
    try (Socket socket = send(commands.get(0).toArray(String[]::new))) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = socket.getOutputStream();
      for (int i = 0; i < commands.size(); i++) {
        String[] args = commands.get(i).toArray(String[]::new);
        if (i > 0) {
          out.write(encode(args));
          out.flush();
        }
        replies.add(readReply(in, String.join(" ", args)));
      }
      return replies;
    } catch (IOException e) {
      throw new IllegalStateException("redis-server on port " + port + " did not answer: " + e, e);
    }
  }

  private static byte[] encode(String... args) {
    StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
    }
    return request.toString().getBytes(StandardCharsets.UTF_8);
  }

  private Socket send(String... args) throws IOException {
    Socket socket =
        tls == null ? new Socket() : tls.clientContext().getSocketFactory().createSocket();
    try {
      socket.connect(new InetSocketAddress(HOST, port), 2000);
      socket.setSoTimeout(10_000);
      if (socket instanceof SSLSocket secure) {
        secure.startHandshake();
      }
      OutputStream out = socket.getOutputStream();
      out.write(encode(args));
      out.flush();
      return socket;
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  private @Nullable Object readReply(InputStream in, String command) throws IOException {
    String line = readLine(in);
    if (line.isEmpty()) {
      throw new IOException("an empty reply line");
    }
    String rest = line.substring(1);
    switch (line.charAt(0)) {
      case '+' -> {
        return rest;
      }
      case '-' ->
          throw new IllegalStateException(
              "redis-server on port " + port + " answered " + command + " with " + line);
      case ':' -> {
        return Long.parseLong(rest);
      }
      case '$' -> {
        int length = Integer.parseInt(rest);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        if (bytes.length != length + 2) {
          throw new IOException("connection closed in a bulk string");
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int count = Integer.parseInt(rest);
        if (count < 0) {
          return null;
        }
        List<Object> elements = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          elements.add(readReply(in, command));
        }
        return elements;
      }
      default -> throw new IOException("an unexpected reply: " + line);
    }
  }

  /** What the server wrote to its log so far, for failure messages. */
  String log() {
    return readLog(dir.resolve("redis.log"));
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
    return "RedisServer["
        + (sentinel ? "sentinel " : cluster ? "cluster node " : "")
        + uri()
        + ", "
        + binary
        + "]";
  }

  private synchronized void launch() {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    if (sentinel) {
      // The configuration file has to come first, and Sentinel rewrites it with its state.
      command.add(dir.resolve(SENTINEL_CONFIG).toString());
      command.add("--sentinel");
    }
    if (tls == null) {
      command.addAll(List.of("--port", Integer.toString(port)));
    } else {
      command.addAll(
          List.of(
              "--port",
              "0",
              "--tls-port",
              Integer.toString(port),
              "--tls-cert-file",
              tls.serverCertificate().toString(),
              "--tls-key-file",
              tls.serverKey().toString(),
              "--tls-ca-cert-file",
              tls.caCertificate().toString(),
              "--tls-auth-clients",
              "yes"));
    }
    command.addAll(
        List.of(
            "--bind",
            HOST,
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.toString(),
            "--protected-mode",
            "no",
            "--daemonize",
            "no",
            "--loglevel",
            "warning"));
    if (cluster) {
      command.addAll(
          List.of(
              "--cluster-enabled",
              "yes",
              "--cluster-config-file",
              dir.resolve("nodes.conf").toString()));
      if (tls != null) {
        // A node connects to the others (bus, replication) as a client: with the client
        // certificate, since the server's is for server authentication only.
        command.addAll(
            List.of(
                "--tls-cluster",
                "yes",
                "--tls-replication",
                "yes",
                "--tls-client-cert-file",
                tls.clientCertificate().toString(),
                "--tls-client-key-file",
                tls.clientKey().toString()));
      }
    }
    command.addAll(extraArgs);
    Path log = dir.resolve("redis.log");
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + binary + ": " + e, e);
    }
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "redis-server exited with code "
                + process.exitValue()
                + " on port "
                + port
                + ": "
                + readLog(log));
      }
      if (answersPing()) {
        return;
      }
      sleep(20);
    }
    throw new IllegalStateException(
        "redis-server did not answer PING on port "
            + port
            + " within "
            + START_TIMEOUT.toSeconds()
            + " s: "
            + readLog(log));
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
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free port on " + HOST, e);
    }
  }

  /**
   * A free port below 55536 whose cluster bus port, 10000 above it, is free too. Another process
   * may still take either before the node binds them; {@link #start} then tries another.
   */
  private static int freeClusterPort() {
    for (int probe = 0; probe < PORT_PROBES; probe++) {
      int port = freePort();
      if (port + CLUSTER_BUS_OFFSET <= 65_535 && isFree(port + CLUSTER_BUS_OFFSET)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "found no free port on "
            + HOST
            + " whose cluster bus port (+"
            + CLUSTER_BUS_OFFSET
            + ") is free too, in "
            + PORT_PROBES
            + " tries");
  }

  private static boolean isFree(int port) {
    try {
      new ServerSocket(port, 1, InetAddress.getByName(HOST)).close();
      return true;
    } catch (IOException e) {
      return false;
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
