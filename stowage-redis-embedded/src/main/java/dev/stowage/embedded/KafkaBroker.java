package dev.stowage.embedded;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A real Apache Kafka broker in KRaft mode: one node that is both broker and controller, on two
 * ephemeral loopback ports, in a child JVM of its own that runs Kafka's own main class ({@code
 * kafka.Kafka}) from Maven Central's {@code org.apache.kafka:kafka_2.13} on this JVM's class path.
 * Used by tests through stowage-testkit's {@code @WithKafka}, and by {@code stowage serve --kafka}
 * as its embedded broker.
 *
 * <p>A child JVM, rather than a broker inside this one, so that a test can {@link #kill()} it as a
 * crash would (SIGKILL: nothing flushed, no clean shutdown) and {@link #start()} it again on the
 * same ports and the same data directory, as an operator restarts a broker. The broker keeps its
 * log in the page cache as Kafka does by default; a killed process loses nothing that the operating
 * system holds.
 *
 * <p>Starting waits until the broker answers a Kafka {@code ApiVersions} request on its port and
 * fails loudly with an {@link IllegalStateException} carrying the end of the broker's log when it
 * does not within {@value #START_TIMEOUT_SECONDS} s, or when Kafka is not on the class path. Every
 * broker still running when this JVM exits is killed by a shutdown hook.
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.start()) {
 *   producerProperties.put("bootstrap.servers", kafka.bootstrapServers());
 *   kafka.kill();    // as a crash
 *   kafka.start();   // same ports, same data
 * }
 * }</pre>
 *
 * <p>Instances are thread-safe.
 */
public final class KafkaBroker implements AutoCloseable {
  /** How long one start may take before it counts as failed. */
  public static final int START_TIMEOUT_SECONDS = 90;

  /** Kafka's main class, which the child JVM runs. */
  static final String KAFKA_MAIN = "kafka.Kafka";

  /** Kafka's storage tool, which formats the data directory once before the first start. */
  static final String STORAGE_TOOL = "kafka.tools.StorageTool";

  private static final String HOST = "127.0.0.1";
  private static final int LOG_LINES = 30;

  /** The child's heap: enough for one node with small topics (Kafka's scripts default to 1 GiB). */
  private static final List<String> JVM_OPTIONS =
      List.of(
          "-Xms128m",
          "-Xmx512m",
          "-XX:+UseSerialGC",
          "-XX:+ExitOnOutOfMemoryError",
          "-Djava.awt.headless=true");

  private static final Set<KafkaBroker> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(KafkaBroker::kill), "stowage-kafka-reaper"));
  }

  private final Path dir;
  private final int port;
  private final int controllerPort;
  private final List<String> jvmOptions;
  private @Nullable Process process;
  private Duration lastStart = Duration.ZERO;
  private boolean closed;

  private KafkaBroker(Path dir, int port, int controllerPort, List<String> jvmOptions) {
    this.dir = dir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.jvmOptions = jvmOptions;
  }

  /**
   * Formats a fresh data directory and starts a broker on two free loopback ports, returning once
   * it answers.
   *
   * @throws IllegalStateException if Kafka is not on the class path, or the broker does not start
   *     within {@value #START_TIMEOUT_SECONDS} s; the message carries the end of its log
   */
  public static KafkaBroker start() {
    return start(List.of());
  }

  /**
   * As {@link #start()}, with {@code jvmOptions} added after the broker's own (a larger heap, or
   * {@code -XX:TieredStopAtLevel=1} for a broker that lives a few seconds, whose start then costs
   * about 40% less CPU). They apply to the data directory's formatting and to every start.
   *
   * @throws IllegalArgumentException if an option does not start with {@code -}
   */
  public static KafkaBroker start(List<String> jvmOptions) {
    List<String> options = List.copyOf(jvmOptions);
    for (String option : options) {
      if (!option.startsWith("-")) {
        throw new IllegalArgumentException(
            "not a JVM option: '"
                + option
                + "' (an option starts with '-'; this would be taken for the main class)");
      }
    }
    requireKafkaOnClassPath();
    Path dir;
    try {
      dir = Files.createTempDirectory("stowage-kafka");
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a data directory for Kafka: " + e, e);
    }
    int port = freePort();
    int controllerPort = freePort();
    while (controllerPort == port) {
      controllerPort = freePort();
    }
    KafkaBroker broker = new KafkaBroker(dir, port, controllerPort, options);
    try {
      broker.writeConfig();
      broker.format();
      broker.startProcess();
      return broker;
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  /** {@code 127.0.0.1:port}, for a client's {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return HOST + ":" + port;
  }

  /** The broker's client port. */
  public int port() {
    return port;
  }

  /** Whether the broker's process is running. */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** How long the last {@link #start} took, from launching the JVM until the broker answered. */
  public synchronized Duration lastStartTime() {
    return lastStart;
  }

  /** The data directory, kept across {@link #kill()} and {@link #start()}. */
  public Path dataDirectory() {
    return dir.resolve("data");
  }

  /**
   * Kills the broker's process with SIGKILL, as a crash would, and waits for it to be gone. Does
   * nothing if it is not running.
   */
  public synchronized void kill() {
    Process running = process;
    process = null;
    RUNNING.remove(this);
    if (running == null) {
      return;
    }
    running.destroyForcibly();
    try {
      running.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops the broker cleanly (SIGTERM: Kafka flushes and closes its logs), waiting up to 30 s
   * before killing it. Does nothing if it is not running.
   */
  public synchronized void stop() {
    Process running = process;
    if (running == null) {
      return;
    }
    running.destroy();
    try {
      if (!running.waitFor(30, TimeUnit.SECONDS)) {
        running.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
    RUNNING.remove(this);
  }

  /**
   * Starts the broker again after {@link #kill()} or {@link #stop()}, on the same ports and data
   * directory, and returns once it answers.
   *
   * @throws IllegalStateException if it is running already, was closed, or does not start; the
   *     message carries the end of its log
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("this Kafka broker was closed; start a new one");
    }
    if (isRunning()) {
      throw new IllegalStateException(
          "the Kafka broker on " + bootstrapServers() + " is running; kill() or stop() it first");
    }
    startProcess();
  }

  /** Stops the broker if it runs (clean shutdown), then deletes its directory. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    stop();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort: a temp directory
    }
  }

  @Override
  public String toString() {
    return "KafkaBroker[" + bootstrapServers() + ", " + dir + "]";
  }

  private void writeConfig() {
    String config =
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@" + HOST + ":" + controllerPort,
            "listeners=PLAINTEXT://"
                + HOST
                + ":"
                + port
                + ",CONTROLLER://"
                + HOST
                + ":"
                + controllerPort,
            "advertised.listeners=PLAINTEXT://" + HOST + ":" + port,
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs=" + dataDirectory(),
            "num.partitions=1",
            "auto.create.topics.enable=true",
            // One node: every internal topic with one replica, and few partitions to create.
            "offsets.topic.replication.factor=1",
            "offsets.topic.num.partitions=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "transaction.state.log.num.partitions=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            // After a SIGKILL the controller keeps the dead incarnation registered until its
            // session
            // expires (9 s by default); a short session lets the restarted broker in sooner.
            "broker.session.timeout.ms=2000",
            "broker.heartbeat.interval.ms=500",
            "");
    try {
      Files.writeString(dir.resolve("server.properties"), config);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write Kafka's configuration in " + dir + ": " + e, e);
    }
  }

  /** Runs Kafka's storage tool once, as {@code kafka-storage.sh format} does. */
  private void format() {
    Path log = dir.resolve("format.log");
    List<String> command = javaCommand(STORAGE_TOOL);
    // One argument with '=': a URL-safe id may start with '-' (1 in 64), which the tool's parser
    // would take for an option after "-t" ("argument --cluster-id/-t: expected one argument").
    command.addAll(
        List.of(
            "format",
            "--cluster-id=" + clusterId(),
            "-c",
            dir.resolve("server.properties").toString()));
    try {
      Process formatting =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      formatting.getOutputStream().close();
      if (!formatting.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        formatting.destroyForcibly();
        throw new IllegalStateException(
            "formatting Kafka's data directory did not finish within "
                + START_TIMEOUT_SECONDS
                + " s:\n"
                + lastLines(log));
      }
      if (formatting.exitValue() != 0) {
        throw new IllegalStateException(
            "formatting Kafka's data directory failed (exit "
                + formatting.exitValue()
                + "):\n"
                + lastLines(log));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + STORAGE_TOOL + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while formatting Kafka's data directory", e);
    }
  }

  private void startProcess() {
    long started = System.nanoTime();
    Path log = dir.resolve("kafka.log");
    List<String> command = javaCommand(KAFKA_MAIN);
    command.add(dir.resolve("server.properties").toString());
    Process child;
    try {
      child =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      child.getOutputStream().close();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start a Kafka broker: " + e, e);
    }
    process = child;
    RUNNING.add(this);
    long deadline = started + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!child.isAlive()) {
        kill();
        throw new IllegalStateException(
            "the Kafka broker exited with status "
                + child.exitValue()
                + " before answering on "
                + bootstrapServers()
                + "; last lines of "
                + log
                + ":\n"
                + lastLines(log));
      }
      try {
        if (answersApiVersions()) {
          lastStart = Duration.ofNanos(System.nanoTime() - started);
          return;
        }
        last = "ApiVersions answered with an error";
      } catch (IOException e) {
        last = e.toString();
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        kill();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the Kafka broker", e);
      }
    }
    kill();
    throw new IllegalStateException(
        "the Kafka broker did not answer on "
            + bootstrapServers()
            + " within "
            + START_TIMEOUT_SECONDS
            + " s (last: "
            + last
            + "); last lines of "
            + log
            + ":\n"
            + lastLines(log));
  }

  /**
   * Sends an {@code ApiVersions} request (version 0: key 18, a correlation id, a client id) and
   * reads the answer's error code: the broker processes requests once it has caught up with its
   * metadata.
   */
  private boolean answersApiVersions() throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(HOST, port), 1000);
      socket.setSoTimeout(2000);
      byte[] clientId = "stowage-probe".getBytes(StandardCharsets.US_ASCII);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(2 + 2 + 4 + 2 + clientId.length);
      out.writeShort(18);
      out.writeShort(0);
      out.writeInt(7);
      out.writeShort(clientId.length);
      out.write(clientId);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      int size = in.readInt();
      int correlation = in.readInt();
      short error = in.readShort();
      return size > 6 && correlation == 7 && error == 0;
    }
  }

  private List<String> javaCommand(String mainClass) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    return command;
  }

  /** A random cluster id in Kafka's form: 16 bytes, URL-safe base64 without padding. */
  private static String clusterId() {
    UUID uuid = UUID.randomUUID();
    ByteBuffer bytes = ByteBuffer.allocate(16);
    bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
  }

  private static void requireKafkaOnClassPath() {
    try {
      Class.forName(KAFKA_MAIN, false, KafkaBroker.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "no Kafka broker on the class path: add"
              + " org.apache.kafka:kafka_2.13 (stowage-testkit and stowage-cli carry it)",
          e);
    }
  }

  private static String lastLines(Path log) {
    try (InputStream in = Files.newInputStream(log)) {
      List<String> lines =
          List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free port on " + HOST, e);
    }
  }
}
