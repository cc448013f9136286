package dev.stowage.board.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedCompression;
import dev.stowage.board.client.BoardClientException;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The TCP endpoint's protection against clients that go quiet, stall in a frame or trickle it, or
 * open more connections than it allows: each is closed with its CLOSING frame on time, and the
 * server keeps serving everyone else. Short timeouts (idle 3 s, read 500 ms, frame 1.5 s) keep the
 * test quick; the connection limits are tried on services of their own with small limits, and other
 * clients' machines are other loopback addresses (127.0.0.2 and up).
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BoardTcpLimitsIntegrationTests {
  private static final Duration IDLE = Duration.ofSeconds(3);
  private static final Duration READ = Duration.ofMillis(500);
  private static final Duration FRAME = Duration.ofMillis(1500);
  private static final int MAX_CONNECTIONS = 1100;
  private static final Duration WAIT = Duration.ofSeconds(30);

  private BoardServer board;
  private BoardTcpServer tcp;

  private RedisServer redis;

  @BeforeAll
  void start(RedisServer redis) {
    this.redis = redis;
    board =
        BoardServer.start(
            0,
            redis.uri(),
            null,
            BoardMode.STOWAGE,
            FeedCompression.NONE,
            TcpOptions.builder()
                .port(0)
                .idleTimeout(IDLE)
                .readTimeout(READ)
                .frameTimeout(FRAME)
                .maxConnections(MAX_CONNECTIONS)
                .maxConnectionsPerAddress(MAX_CONNECTIONS)
                .build());
    tcp = board.tcp();
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  /** Each test starts with no connection left over from another. */
  @BeforeEach
  void noConnectionsOpen() {
    awaitOpenConnections(tcp, 0);
  }

  @Test
  void anIdleClientIsClosedAfterTheIdleTimeoutAndNotBefore() throws Exception {
    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      long start = System.nanoTime();
      byte[] closing = raw.readToEnd();
      long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(closing)
          .asHexString()
          .startsWith("0000")
          .contains(hex(BoardProtocol.REPLY_CLOSING, 0, BoardProtocol.CLOSE_IDLE));
      assertThat(message(closing)).matches("idle for \\d+ ms \\(idle timeout 3000 ms\\)");
      assertThat(elapsedMs).isBetween(IDLE.toMillis() - 50, IDLE.toMillis() + 1500);
    }
  }

  @Test
  void aClientThatKeepsAskingIsNotIdle() throws Exception {
    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      // A ping every quarter of the idle timeout for twice the idle timeout; the first one that is
      // not answered OK fails the wait at once (an assertion error is not retried by until()).
      AtomicInteger id = new AtomicInteger();
      await()
          .pollInSameThread()
          .pollDelay(Duration.ZERO)
          .pollInterval(IDLE.dividedBy(4))
          .during(IDLE.multipliedBy(2))
          .atMost(IDLE.multipliedBy(2).plus(WAIT))
          .until(
              () -> {
                int ping = id.incrementAndGet();
                raw.sendFrame(BoardProtocol.OP_PING, ping, new byte[0]);
                assertThat(raw.readFrame())
                    .isEqualTo(RawConnection.frame(BoardProtocol.REPLY_OK, ping, new byte[0]));
                return true;
              });
      assertThat(id.get()).as("pings answered over twice the idle timeout").isGreaterThan(8);
    }
  }

  @Test
  void aClientThatStallsInTheMiddleOfAFrameIsClosedAfterTheReadTimeout() throws Exception {
    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      // A ping announced as 5 bytes, of which only the type and half the request id arrive.
      raw.send(HexFormat.of().parseHex("000000050500"));
      long start = System.nanoTime();
      byte[] closing = raw.readToEnd();
      long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(closing)
          .asHexString()
          .contains(hex(BoardProtocol.REPLY_CLOSING, 0, BoardProtocol.CLOSE_READ_TIMEOUT));
      assertThat(message(closing))
          .matches("no byte for \\d+ ms in the middle of a frame \\(read timeout 500 ms\\)");
      assertThat(elapsedMs).isBetween(READ.toMillis() - 50, IDLE.toMillis() - 1);
    }
  }

  @Test
  void aFrameTrickledByteByByteIsClosedAfterTheFrameTimeout() throws Exception {
    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      // A frame announced as 64 bytes, sent one byte every 200 ms: never quiet for the read
      // timeout (500 ms), but not complete when the frame timeout (1.5 s) is up.
      byte[] frame = RawConnection.frame(BoardProtocol.OP_PING, 1, new byte[59]);
      ScheduledExecutorService attacker = Executors.newSingleThreadScheduledExecutor();
      try {
        CompletableFuture<Void> trickle = new CompletableFuture<>();
        AtomicInteger sent = new AtomicInteger();
        long start = System.nanoTime();
        var unusedTask =
            attacker.scheduleAtFixedRate(
                () -> {
                  if (trickle.isDone()) {
                    return;
                  }
                  try {
                    raw.send(new byte[] {frame[sent.get()]});
                    if (sent.incrementAndGet() == frame.length) {
                      trickle.complete(null);
                    }
                  } catch (IOException e) {
                    trickle.complete(null); // the server closed the connection: the trickle ends
                  }
                },
                0,
                200,
                TimeUnit.MILLISECONDS); // the attacker's pace
        byte[] closing = raw.readToEnd();
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        trickle.get(30, TimeUnit.SECONDS);
        assertThat(closing)
            .asHexString()
            .contains(hex(BoardProtocol.REPLY_CLOSING, 0, BoardProtocol.CLOSE_READ_TIMEOUT));
        assertThat(message(closing))
            .matches(
                "a frame begun \\d+ ms ago is not complete \\(frame"
                    + " timeout 1500 ms\\): (\\d+) bytes of it arrived; its length field announced 64"
                    + " bytes after it, of which \\d+ are still expected");
        assertThat(elapsedMs).isBetween(FRAME.toMillis() - 50, FRAME.toMillis() + 1500);
      } finally {
        attacker.shutdownNow();
      }
    }
  }

  @Test
  void aThousandConnectionsOpenedAndAbandonedLeaveTheServerHealthy() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < 1000; i++) {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", tcp.port()), 5000);
        sockets.add(socket);
        if (i % 3 == 1) {
          socket.getOutputStream().write(HexFormat.of().parseHex("00000040")); // a frame begun
        }
      }
      awaitOpenConnections(tcp, 1000);
      // A third vanish with a reset, the rest are left open for the server to reap.
      for (int i = 0; i < sockets.size(); i += 3) {
        sockets.get(i).setSoLinger(true, 0);
        sockets.get(i).close();
      }
      try (StowageBoardClient client =
          StowageBoardClient.builder("127.0.0.1", tcp.port()).build()) {
        assertThat(client.page(1, 5)).succeedsWithin(WAIT);
      }
      awaitOpenConnections(tcp, 0);
      try (StowageBoardClient client =
          StowageBoardClient.builder("127.0.0.1", tcp.port()).build()) {
        assertThat(client.page(1, 5)).succeedsWithin(WAIT);
        assertThat(client.ping()).succeedsWithin(WAIT);
      }
    } finally {
      for (Socket socket : sockets) {
        socket.close();
      }
    }
  }

  @Test
  void aConnectionBeyondTheMaximumTakesThePlaceOfTheLongestIdleOne() throws Exception {
    try (BoardServer small = smallServer(16, 32);
        RawConnection longestIdle = new RawConnection(small.tcp().port(), WAIT)) {
      awaitOpenConnections(small.tcp(), 1);
      List<RawConnection> others = open(small.tcp(), "127.0.0.1", 15);
      try {
        awaitOpenConnections(small.tcp(), 16);
        try (RawConnection newcomer = new RawConnection(small.tcp().port(), WAIT)) {
          newcomer.sendFrame(BoardProtocol.OP_PING, 9, new byte[0]);
          assertThat(newcomer.readFrame())
              .isEqualTo(RawConnection.frame(BoardProtocol.REPLY_OK, 9, new byte[0]));
        }
        byte[] closing = longestIdle.readToEnd();
        assertThat(closing)
            .asHexString()
            .contains(hex(BoardProtocol.REPLY_CLOSING, 0, BoardProtocol.CLOSE_IDLE));
        assertThat(message(closing))
            .matches(
                "closed to make room for a new connection: the"
                    + " server holds its maximum of 16 connections and this one was the longest idle"
                    + " \\(idle for \\d+ ms\\)");
        for (RawConnection other : others) {
          assertThat(other.socket().getInputStream().available()).isZero();
        }
      } finally {
        closeAll(others);
      }
    }
  }

  @Test
  void aConnectionBeyondTheMaximumIsTurnedAwayWhenNoneIsIdle() throws Exception {
    try (BoardServer small = smallServer(8, 16)) {
      List<RawConnection> busy = open(small.tcp(), "127.0.0.1", 8);
      try {
        for (RawConnection connection : busy) {
          connection.send(HexFormat.of().parseHex("00000040")); // a frame begun: not idle
        }
        awaitOpenConnections(small.tcp(), 8);
        // Until the server has read each begun frame, it may take its connection for idle.
        await("every begun frame read")
            .atMost(WAIT)
            .until(() -> small.tcp().connections().idleConnections() == 0);
        try (RawConnection extra = new RawConnection(small.tcp().port(), WAIT)) {
          assertThat(extra.readToEnd())
              .isEqualTo(
                  RawConnection.codeFrame(
                      BoardProtocol.REPLY_CLOSING,
                      0,
                      BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS,
                      "the server holds its maximum of 8 connections; try again later"));
        }
      } finally {
        closeAll(busy);
      }
      awaitOpenConnections(small.tcp(), 0);
      try (StowageBoardClient client =
          StowageBoardClient.builder("127.0.0.1", small.tcp().port()).build()) {
        assertThat(client.ping()).succeedsWithin(WAIT);
      }
    }
  }

  /**
   * The attack of issue 12: one client opens connection after connection and leaves them idle, and
   * other machines fill what is left. Its address gets no more than its share, and a client that
   * comes to make requests is served: it takes the place of the longest idle connection.
   */
  @Test
  void aClientCannotLockOthersOutWithIdleConnections() throws Exception {
    try (BoardServer small = smallServer(32, 8)) {
      BoardTcpServer server = small.tcp();
      List<RawConnection> attack = new ArrayList<>();
      try {
        attack.addAll(open(server, "127.0.0.2", 8));
        awaitOpenConnections(server, 8);
        for (int i = 0; i < 40; i++) {
          try (RawConnection refused = new RawConnection(server.port(), WAIT, "127.0.0.2")) {
            assertThat(refused.readToEnd())
                .isEqualTo(
                    RawConnection.codeFrame(
                        BoardProtocol.REPLY_CLOSING,
                        0,
                        BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS,
                        "the server holds its maximum of 8 connections from 127.0.0.2; close one"
                            + " first"));
          }
        }
        for (String address : List.of("127.0.0.3", "127.0.0.4", "127.0.0.5")) {
          attack.addAll(open(server, address, 8));
        }
        awaitOpenConnections(server, 32);
        try (StowageBoardClient client =
            StowageBoardClient.builder("127.0.0.1", server.port()).build()) {
          assertThat(client.create(TestPosts.post(1))).succeedsWithin(WAIT);
          assertThat(client.page(1, 5))
              .succeedsWithin(WAIT)
              .satisfies(page -> assertThat(page).hasSize(1));
          assertThat(client.ping()).succeedsWithin(WAIT);
        }
        // Exactly one attacking connection made room for the client.
        await()
            .atMost(WAIT)
            .untilAsserted(
                () ->
                    assertThat(attack.stream().filter(RawConnection::closedByServer).count())
                        .isEqualTo(1));
      } finally {
        closeAll(attack);
      }
    }
  }

  private BoardServer smallServer(int maxConnections, int perAddress) {
    return BoardServer.start(
        0,
        redis.uri(),
        null,
        BoardMode.STOWAGE,
        FeedCompression.NONE,
        TcpOptions.builder()
            .port(0)
            .maxConnections(maxConnections)
            .maxConnectionsPerAddress(perAddress)
            .build());
  }

  private static List<RawConnection> open(BoardTcpServer server, String from, int count)
      throws IOException {
    List<RawConnection> opened = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      opened.add(new RawConnection(server.port(), WAIT, from));
    }
    return opened;
  }

  private static void closeAll(List<RawConnection> connections) throws IOException {
    for (RawConnection connection : connections) {
      connection.close();
    }
  }

  @Test
  void theClientReconnectsAfterTheServerClosedItsIdleConnection() throws Exception {
    try (StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", tcp.port()).build()) {
      assertThat(client.page(1, 1)).succeedsWithin(WAIT);
      assertThat(client.connections()).isEqualTo(1);
      awaitOpenConnections(tcp, 1);
      awaitOpenConnections(tcp, 0);
      assertThat(client.page(1, 1)).succeedsWithin(WAIT);
      assertThat(client.connections()).isEqualTo(2);
    }
  }

  @Test
  void aServerThatNeverAnswersTimesTheRequestOut() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        StowageBoardClient client =
            StowageBoardClient.builder("127.0.0.1", silent.getLocalPort())
                .requestTimeout(Duration.ofMillis(300))
                .build()) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.ping().join())
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(BoardClientException.class)
          .hasMessageMatching("no reply to request \\d+ within 300 ms")
          .satisfies(e -> assertThat(((BoardClientException) e).isTimeout()).isTrue());
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
    }
  }

  @Test
  void aClosedPortFailsTheRequestWithAClearError() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    try (StowageBoardClient client =
        StowageBoardClient.builder("127.0.0.1", port)
            .connectTimeout(Duration.ofSeconds(2))
            .build()) {
      assertThatThrownBy(() -> client.ping().join())
          .cause()
          .isInstanceOf(BoardClientException.class)
          .hasMessageStartingWith("cannot connect to 127.0.0.1:" + port);
      assertThat(client.connections()).isZero();
    }
  }

  private static void awaitOpenConnections(BoardTcpServer server, int expected) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(server.openConnections()).as("open connections").isEqualTo(expected));
  }

  /** The hex of a frame's type, request id and code (what follows the length). */
  private static String hex(int type, int id, int code) {
    return HexFormat.of()
        .formatHex(
            ByteBuffer.allocate(7).put((byte) type).putInt(id).putShort((short) code).array())
        .toUpperCase(Locale.ROOT);
  }

  private static String message(byte[] frame) {
    return new String(frame, 11, frame.length - 11, StandardCharsets.UTF_8);
  }
}
