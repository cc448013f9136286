package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 29: clients that never read cannot make the board service run out of memory. The service
 * runs in a child JVM of {@value #HEAP} ({@link MeasuredBoard}), which reports its heap and direct
 * memory; posts of three 4,000-character fields (about 12 KB each) are preloaded, and clients that
 * never read send many page requests of 500 posts (about 6 MB of reply each) at once, while another
 * client reads pages throughout. The peaks must stay within a bound derived from the limits (see
 * {@link #assertWithinTheBound}) and are printed, to be quoted in the docs.
 *
 * <p>Each case is one method over the same child: {@link #measure} takes the clients that never
 * read as a {@link NonReadingClients}, raw TCP frames or pipelined HTTP requests.
 */
@WithRedis
@WithPostgres
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BoardMemoryBoundIntegrationTests {
  /** The child's heap: the issue's -Xmx512m. Direct memory is bounded by the same figure. */
  static final String HEAP = "-Xmx512m";

  private static final int POSTS = 3000;
  private static final int PAGE_SIZE = BoardLimits.MAX_PAGE_SIZE;

  /** Connections that never read, and the page requests each sends at once. */
  private static final int SLOW_CONNECTIONS = 4;

  private static final int PAGES_PER_CONNECTION = 250;

  /** The bound in posts given to the child: two pages of 500 per connection. */
  private static final int MAX_POSTS_IN_FLIGHT = 1000;

  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(2);

  /** How long the client that reads may wait for any one page. */
  private static final Duration SERVED_WITHIN = Duration.ofSeconds(5);

  private static final Duration WAIT = Duration.ofSeconds(40);

  private ChildBoard board;

  /** Bytes of one post in a page reply, measured on a page of 500. */
  private long postBytes;

  @BeforeAll
  void start(RedisServer redis, PostgresDatabase db) throws Exception {
    board =
        ChildBoard.start(
            redis.uri(),
            db.r2dbcUrl(),
            Map.of(
                "stowage.board.tcp.write-timeout-ms", WRITE_TIMEOUT.toMillis(),
                "stowage.board.http.write-timeout-ms", WRITE_TIMEOUT.toMillis(),
                "stowage.board.tcp.max-posts-in-flight", MAX_POSTS_IN_FLIGHT));
    String text = "x".repeat(BoardLimits.MAX_TEXT_CHARS - 10);
    try (StowageBoardClient client = client()) {
      for (int from = 0; from < POSTS; from += 200) {
        List<NewBoard> posts = new ArrayList<>();
        for (int i = from; i < from + 200; i++) {
          posts.add(
              new NewBoard(
                  80_000L + i,
                  "Long post " + i,
                  i + text,
                  i + text,
                  "Chile",
                  "Engineer",
                  "4716296968179136",
                  "333-96-3366",
                  i + text,
                  "+1-610-354-4229"));
        }
        assertThat(client.createAll(posts)).succeedsWithin(WAIT);
      }
      byte[] page = client.pageBytes(1, PAGE_SIZE).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      postBytes = page.length / PAGE_SIZE;
    }
    assertThat(postBytes)
        .as("bytes of a post with three 4,000-character fields")
        .isGreaterThan(3L * 4000);
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  /**
   * Four TCP connections send 250 page requests of 500 posts each at once and never read: each runs
   * two of them at a time (the bound of 1,000 posts), is not read further while they wait unsent,
   * and is closed by the write timeout; the Redis client buffers never hold more than the pages in
   * flight.
   */
  @Test
  @Order(1)
  void tcpClientsThatNeverReadWithRedisUp(RedisServer redis) throws Exception {
    Peaks peaks = measure("TCP, Redis up", new NonReadingTcp(), redis);
    assertWithinTheBound(peaks);
    assertThat(peaks.redisClientBuffers())
        .as("Redis's buffers for its clients (mem_clients_normal)")
        .isLessThanOrEqualTo(inFlightBytes() + (8L << 20));
  }

  /** The same with Redis stopped: every page is read from the database. */
  @Test
  @Order(2)
  void tcpClientsThatNeverReadWithRedisDown(RedisServer redis) throws Exception {
    redis.stop();
    try {
      assertWithinTheBound(measure("TCP, Redis down", new NonReadingTcp(), null));
    } finally {
      redis.restart();
    }
  }

  /**
   * Four HTTP connections pipeline 250 page requests of 500 posts each and never read: each has one
   * response computed and unsent at a time (the next request waits until the previous response has
   * left), is not read further, and is closed by the write timeout.
   */
  @Test
  @Order(3)
  void httpClientsThatNeverReadWithRedisUp(RedisServer redis) throws Exception {
    Peaks peaks = measure("HTTP, Redis up", new NonReadingHttp(), redis);
    assertWithinTheBound(peaks);
    assertThat(peaks.redisClientBuffers())
        .as("Redis's buffers for its clients (mem_clients_normal)")
        .isLessThanOrEqualTo(inFlightBytes() + (8L << 20));
  }

  /** The same over HTTP with Redis stopped: every page is read from the database. */
  @Test
  @Order(4)
  void httpClientsThatNeverReadWithRedisDown(RedisServer redis) throws Exception {
    redis.stop();
    try {
      assertWithinTheBound(measure("HTTP, Redis down", new NonReadingHttp(), null));
    } finally {
      redis.restart();
    }
  }

  /**
   * The page data that the connections that never read may have in flight at once: each asks for at
   * most {@link #MAX_POSTS_IN_FLIGHT} posts (two pages of 500) until their replies have left.
   */
  private long inFlightBytes() {
    return (long) SLOW_CONNECTIONS * MAX_POSTS_IN_FLIGHT * postBytes;
  }

  /**
   * The bound, from the limits. {@code D} is {@link #inFlightBytes()} (4 × 1,000 posts × about 12
   * KB, 49 MB). On the heap a page is held at most twice at once while it is made (the values read
   * from Redis, or the database's rows, and the JSON fragments made of them), and the near cache
   * keeps up to {@link StowageBoardService#NEAR_CACHE_BYTES} of pages and {@link
   * StowageBoardService#KEPT_BODY_BYTES} of bodies: heap after a collection ≤ the heap before the
   * load + 2D + 80 MiB. In direct memory a page is at most twice too (Redis's reply being read, and
   * the reply frame until it has left, unsent replies included): direct ≤ the direct memory before
   * the load + 2D + 32 MiB for the allocator's chunks and the other client.
   */
  private void assertWithinTheBound(Peaks peaks) {
    long d = inFlightBytes();
    long near = StowageBoardService.NEAR_CACHE_BYTES + StowageBoardService.KEPT_BODY_BYTES;
    assertThat(peaks.heapAfterGc())
        .as("heap used after a collection, peak (%s)", peaks)
        .isLessThanOrEqualTo(peaks.before().heapAfterGc() + 2 * d + near);
    assertThat(peaks.direct())
        .as("direct memory used, peak (%s)", peaks)
        .isLessThanOrEqualTo(peaks.before().direct() + 2 * d + (32L << 20));
  }

  /**
   * Opens {@code slow}, which sends its requests and never reads, and reads a page of 25 with
   * another TCP client until the server has closed every connection of {@code slow}: each page must
   * come within {@link #SERVED_WITHIN}. Returns the child's peaks over that time, with Redis's
   * buffers for its clients when {@code redis} is given, and prints them.
   */
  private Peaks measure(String label, NonReadingClients slow, @Nullable RedisServer redis)
      throws Exception {
    Status before = board.command("reset");
    AtomicLong redisBuffers = new AtomicLong();
    AtomicInteger served = new AtomicInteger();
    long started = System.nanoTime();
    String outcome = "failed";
    try (StowageBoardClient reader = client()) {
      assertThat(reader.page(1, 25)).succeedsWithin(SERVED_WITHIN);
      slow.open(board);
      try {
        await(label + ": the server closes every connection that never reads")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> {
                  long asked = System.nanoTime();
                  assertThat(reader.page(1, 25))
                      .succeedsWithin(SERVED_WITHIN)
                      .satisfies(page -> assertThat(page).hasSize(25));
                  assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(SERVED_WITHIN);
                  served.incrementAndGet();
                  if (redis != null) {
                    redisBuffers.accumulateAndGet(clientBuffers(redis), Math::max);
                  }
                  return slow.closedByServer(board.command("status"));
                });
        outcome = "closed";
      } finally {
        slow.close();
      }
    } finally {
      // Printed when the case fails too, so that a run against other code can be quoted.
      if (board.isAlive()) {
        Status after = board.command("status");
        System.out.printf(
            "%s: %d connections that never read %s after %d ms, %d pages served"
                + " to the other client meanwhile; peaks in the child (%s): heap used %s, heap after a"
                + " collection %s (%s before), direct %s (%s before)%s%n",
            label,
            SLOW_CONNECTIONS,
            outcome,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
            served.get(),
            HEAP,
            mib(after.heap()),
            mib(after.heapAfterGc()),
            mib(before.heapAfterGc()),
            mib(after.direct()),
            mib(before.direct()),
            redis == null ? "" : ", Redis client buffers " + mib(redisBuffers.get()));
      }
    }
    return new Peaks(label, before, board.command("status"), redisBuffers.get());
  }

  /** Redis's {@code mem_clients_normal}: the buffers it holds for its ordinary clients. */
  private static long clientBuffers(RedisServer redis) {
    String info = String.valueOf(redis.reply("INFO", "memory"));
    return info.lines()
        .filter(line -> line.startsWith("mem_clients_normal:"))
        .findFirst()
        .map(line -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
        .orElseThrow();
  }

  private static String mib(long bytes) {
    return String.format("%.1f MiB", bytes / 1048576.0);
  }

  private StowageBoardClient client() {
    return StowageBoardClient.builder("127.0.0.1", board.tcpPort()).requestTimeout(WAIT).build();
  }

  /** The peaks of one case, and the child's state before it. */
  record Peaks(String label, Status before, Status after, long redisClientBuffers) {
    long heapAfterGc() {
      return after.heapAfterGc();
    }

    long direct() {
      return after.direct();
    }
  }

  /**
   * Clients that never read their replies, opened by a case and closed by the server: one kind per
   * transport.
   */
  interface NonReadingClients extends AutoCloseable {
    /** Connects to the child's TCP or HTTP port and sends everything. */
    void open(ChildBoard board) throws IOException;

    /** Whether the server has closed every connection, as {@code status} reports. */
    boolean closedByServer(Status status);

    @Override
    void close() throws IOException;
  }

  /**
   * {@link #SLOW_CONNECTIONS} raw sockets, each sending {@link #PAGES_PER_CONNECTION} page requests
   * of 500 posts (pages 1 to 6 in turn, so that they are not all the one page the near cache keeps)
   * in one write, reading nothing, with a 4 KiB receive buffer.
   */
  private static final class NonReadingTcp implements NonReadingClients {
    private final List<Socket> sockets = new ArrayList<>();

    @Override
    public void open(ChildBoard board) throws IOException {
      ByteArrayOutputStream frames = new ByteArrayOutputStream();
      for (int i = 0; i < PAGES_PER_CONNECTION; i++) {
        frames.write(pageFrame(i + 1, i % (POSTS / PAGE_SIZE) + 1));
      }
      sendFromEach(sockets, board.tcpPort(), frames.toByteArray());
    }

    /** Only the other client's connection is left. */
    @Override
    public boolean closedByServer(Status status) {
      return status.tcpOpen() == 1;
    }

    @Override
    public void close() throws IOException {
      for (Socket socket : sockets) {
        socket.close();
      }
    }

    /** A page request frame of {@link #PAGE_SIZE} posts with a JSON body. */
    private static byte[] pageFrame(int id, int page) {
      byte[] json = ("[" + page + "," + PAGE_SIZE + "]").getBytes(StandardCharsets.US_ASCII);
      return ByteBuffer.allocate(13 + json.length)
          .putInt(9 + json.length)
          .put((byte) BoardProtocol.OP_PAGE)
          .putInt(id)
          .put(new byte[] {(byte) 0xc1, 0x10, BoardProtocol.CODEC_JSON, 0})
          .put(json)
          .array();
    }
  }

  /**
   * Opens {@link #SLOW_CONNECTIONS} sockets to {@code port}, each with a 4 KiB receive buffer, and
   * writes {@code bytes} on each; nothing is read.
   */
  static void sendFromEach(List<Socket> sockets, int port, byte[] bytes) throws IOException {
    for (int i = 0; i < SLOW_CONNECTIONS; i++) {
      Socket socket = new Socket();
      sockets.add(socket);
      socket.setReceiveBufferSize(4096);
      socket.connect(new InetSocketAddress("127.0.0.1", port));
      OutputStream out = socket.getOutputStream();
      out.write(bytes);
      out.flush();
    }
  }

  /**
   * {@link #SLOW_CONNECTIONS} raw sockets to the HTTP API, each pipelining {@link
   * #PAGES_PER_CONNECTION} requests {@code GET /boards?page=N&size=500} (pages 1 to 6 in turn) in
   * one write, reading nothing, with a 4 KiB receive buffer.
   */
  private static final class NonReadingHttp implements NonReadingClients {
    private final List<Socket> sockets = new ArrayList<>();

    @Override
    public void open(ChildBoard board) throws IOException {
      StringBuilder requests = new StringBuilder();
      for (int i = 0; i < PAGES_PER_CONNECTION; i++) {
        requests
            .append("GET /boards?page=")
            .append(i % (POSTS / PAGE_SIZE) + 1)
            .append("&size=")
            .append(PAGE_SIZE)
            .append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      }
      sendFromEach(
          sockets, board.httpPort(), requests.toString().getBytes(StandardCharsets.US_ASCII));
    }

    /** The other client reads over TCP: no HTTP connection is left. */
    @Override
    public boolean closedByServer(Status status) {
      return status.httpOpen() == 0;
    }

    @Override
    public void close() throws IOException {
      for (Socket socket : sockets) {
        socket.close();
      }
    }
  }

  /**
   * What {@link MeasuredBoard} answers: open connections, and peaks since the last reset (just
   * after it, what is used then).
   */
  record Status(int tcpOpen, int httpOpen, long heap, long heapAfterGc, long direct) {
    static Status parse(String line) {
      Map<String, Long> values = new HashMap<>();
      for (String pair : line.split(" ")) {
        int equals = pair.indexOf('=');
        if (equals > 0) {
          values.put(pair.substring(0, equals), Long.parseLong(pair.substring(equals + 1)));
        }
      }
      return new Status(
          values.get("tcpOpen").intValue(),
          values.get("httpOpen").intValue(),
          values.get("heapPeak"),
          values.get("heapAfterGcPeak"),
          Math.max(values.get("directPeak"), values.get("nettyDirectPeak")));
    }
  }

  /** The child JVM running {@link MeasuredBoard}, its output in a file. */
  static final class ChildBoard implements AutoCloseable {
    private final Process process;
    private final Path output;
    private final Writer commands;
    private final int tcpPort;
    private final int httpPort;
    private int sent;

    private ChildBoard(Process process, Path output) {
      this.process = process;
      this.output = output;
      this.commands = process.outputWriter(StandardCharsets.UTF_8);
      String ready = awaitLine("ready");
      this.tcpPort = Integer.parseInt(ready.substring(ready.indexOf("tcp=") + 4).trim());
      this.httpPort =
          Integer.parseInt(
              ready.substring(ready.indexOf("http=") + 5, ready.indexOf(" tcp=")).trim());
    }

    /**
     * Starts {@link MeasuredBoard} in a JVM of {@link #HEAP} on {@code redisUri} and {@code dbUrl},
     * with {@code properties} as system properties (they override the service's defaults).
     */
    static ChildBoard start(String redisUri, String dbUrl, Map<String, Object> properties)
        throws IOException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add(HEAP);
      command.add("-XX:+ExitOnOutOfMemoryError");
      properties.forEach((name, value) -> command.add("-D" + name + "=" + value));
      command.add("-cp");
      command.add(
          System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
      command.add(MeasuredBoard.class.getName());
      command.add(redisUri);
      command.add(dbUrl);
      Path output = Files.createTempFile("measured-board", ".log");
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      return new ChildBoard(process, output);
    }

    int tcpPort() {
      return tcpPort;
    }

    int httpPort() {
      return httpPort;
    }

    /** Whether the child still runs (it exits on an {@code OutOfMemoryError}). */
    boolean isAlive() {
      return process.isAlive();
    }

    /** Sends {@code command} ({@code status} or {@code reset}) and parses the answer. */
    Status command(String command) {
      String token = command + "-" + ++sent;
      try {
        commands.write(command + " " + token + "\n");
        commands.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("the child JVM stopped reading; it printed:\n" + log(), e);
      }
      return Status.parse(awaitLine(command + " " + token + " "));
    }

    /** The line that begins with {@link MeasuredBoard#PREFIX} and {@code start}, once printed. */
    private String awaitLine(String start) {
      AtomicReference<String> line = new AtomicReference<>();
      await("the child JVM to print '" + start + "'")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                String log = log();
                log.lines()
                    .filter(l -> l.startsWith(MeasuredBoard.PREFIX + start))
                    .findFirst()
                    .ifPresent(line::set);
                assertThat(line.get() != null || process.isAlive())
                    .as(
                        "the child JVM is running" + " (exit code %s); it printed:%n%s",
                        process.isAlive() ? "-" : process.exitValue(), log)
                    .isTrue();
                return line.get() != null;
              });
      return line.get();
    }

    private String log() {
      try {
        return Files.readString(output, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Ends the child's input, which stops it, and waits for it. */
    @Override
    public void close() {
      try {
        commands.close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(output);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
