package dev.stowage.board.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedFormat;
import dev.stowage.board.client.BoardClientException;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.testkit.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The TCP endpoint's protection against clients that go quiet, stall in a frame, or open more
 * connections than it allows: each is closed with its CLOSING frame on time, and the server keeps
 * serving everyone else. Short timeouts (idle 3 s, read 500 ms) keep the test quick.
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardTcpLimitsIntegrationTests {
  private static final Duration IDLE = Duration.ofSeconds(3);
  private static final Duration READ = Duration.ofMillis(500);
  private static final int MAX_CONNECTIONS = 1100;
  private static final Duration WAIT = Duration.ofSeconds(30);

  private BoardServer board;
  private BoardTcpServer tcp;

  @BeforeAll
  void start(RedisServer redis) {
    board = BoardServer.start(0, redis.uri(), null, BoardMode.STOWAGE, FeedFormat.Storage.NONE,
        TcpOptions.builder().port(0).idleTimeout(IDLE).readTimeout(READ)
            .maxConnections(MAX_CONNECTIONS).build());
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
  void noConnectionsOpen() throws InterruptedException {
    awaitOpenConnections(0);
  }

  @Test
  void anIdleClientIsClosedAfterTheIdleTimeoutAndNotBefore() throws Exception {
    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      long start = System.nanoTime();
      byte[] closing = raw.readToEnd();
      long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(closing).asHexString().startsWith("0000").contains(hex(BoardProtocol.REPLY_CLOSING,
          0, BoardProtocol.CLOSE_IDLE));
      assertThat(message(closing)).matches("idle for \\d+ ms \\(idle timeout 3000 ms\\)");
      assertThat(elapsedMs).isBetween(IDLE.toMillis() - 50, IDLE.toMillis() + 1500);
    }
  }

  @Test
  void aClientThatKeepsAskingIsNotIdle() throws Exception {
    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      long until = System.nanoTime() + IDLE.multipliedBy(2).toNanos();
      int id = 0;
      while (System.nanoTime() < until) {
        raw.sendFrame(BoardProtocol.OP_PING, ++id, new byte[0]);
        assertThat(raw.readFrame()).isEqualTo(RawConnection.frame(BoardProtocol.REPLY_OK, id,
            new byte[0]));
        Thread.sleep(IDLE.toMillis() / 4);
      }
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
      assertThat(closing).asHexString().contains(hex(BoardProtocol.REPLY_CLOSING, 0,
          BoardProtocol.CLOSE_READ_TIMEOUT));
      assertThat(message(closing)).matches(
          "no byte for \\d+ ms in the middle of a frame \\(read timeout 500 ms\\)");
      assertThat(elapsedMs).isBetween(READ.toMillis() - 50, IDLE.toMillis() - 1);
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
      awaitOpenConnections(1000);
      // A third vanish with a reset, the rest are left open for the server to reap.
      for (int i = 0; i < sockets.size(); i += 3) {
        sockets.get(i).setSoLinger(true, 0);
        sockets.get(i).close();
      }
      try (StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", tcp.port())
          .build()) {
        assertThat(client.page(1, 5)).succeedsWithin(WAIT);
      }
      awaitOpenConnections(0);
      try (StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", tcp.port())
          .build()) {
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
  void aConnectionBeyondTheMaximumIsTurnedAwayAndLaterOnesAreServed() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < MAX_CONNECTIONS; i++) {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", tcp.port()), 5000);
        sockets.add(socket);
      }
      awaitOpenConnections(MAX_CONNECTIONS);
      try (RawConnection extra = new RawConnection(tcp.port(), WAIT)) {
        assertThat(extra.readToEnd()).isEqualTo(RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING, 0, BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS,
            "the server holds its maximum of 1100 connections; try again later"));
      }
    } finally {
      for (Socket socket : sockets) {
        socket.close();
      }
    }
    awaitOpenConnections(0);
    try (StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", tcp.port()).build()) {
      assertThat(client.ping()).succeedsWithin(WAIT);
    }
  }

  @Test
  void theClientReconnectsAfterTheServerClosedItsIdleConnection() throws Exception {
    try (StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", tcp.port()).build()) {
      assertThat(client.page(1, 1)).succeedsWithin(WAIT);
      assertThat(client.connections()).isEqualTo(1);
      awaitOpenConnections(1);
      awaitOpenConnections(0);
      assertThat(client.page(1, 1)).succeedsWithin(WAIT);
      assertThat(client.connections()).isEqualTo(2);
    }
  }

  @Test
  void aServerThatNeverAnswersTimesTheRequestOut() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", silent.getLocalPort())
            .requestTimeout(Duration.ofMillis(300)).build()) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.ping().join()).isInstanceOf(CompletionException.class)
          .cause().isInstanceOf(BoardClientException.class)
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
    try (StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", port)
        .connectTimeout(Duration.ofSeconds(2)).build()) {
      assertThatThrownBy(() -> client.ping().join()).cause()
          .isInstanceOf(BoardClientException.class)
          .hasMessageStartingWith("cannot connect to 127.0.0.1:" + port);
      assertThat(client.connections()).isZero();
    }
  }

  private void awaitOpenConnections(int expected) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (tcp.openConnections() != expected) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("expected " + expected + " open connections within " + WAIT
            + ", the server holds " + tcp.openConnections());
      }
      Thread.sleep(20);
    }
  }

  /** The hex of a frame's type, request id and code (what follows the length). */
  private static String hex(int type, int id, int code) {
    return HexFormat.of().formatHex(ByteBuffer.allocate(7).put((byte) type).putInt(id)
        .putShort((short) code).array()).toUpperCase();
  }

  private static String message(byte[] frame) {
    return new String(frame, 11, frame.length - 11, java.nio.charset.StandardCharsets.UTF_8);
  }
}
