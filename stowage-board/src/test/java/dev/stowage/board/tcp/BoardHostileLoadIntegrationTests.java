package dev.stowage.board.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedCompression;
import dev.stowage.board.HttpOptions;
import dev.stowage.board.RawHttp;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A hostile load, bounded in count and time, on 127.0.0.1 only: 700 HTTP connections opened and
 * left idle or half a request sent, and 750 TCP connections from three other loopback addresses
 * left idle or a frame begun, while users that behave go on creating and reading posts over both
 * transports, one TCP client connecting in the middle of it. Every request of theirs succeeds, the
 * service turns away what is beyond its limits, and closes every attacking connection by its
 * timeouts.
 */
@WithRedis
class BoardHostileLoadIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int HTTP_MAX = 600;
  private static final int HTTP_USERS = 4;
  private static final int HTTP_REQUESTS_PER_USER = 100;
  private static final int HTTP_ATTACK = 700;
  private static final int TCP_MAX = 1000;
  private static final int TCP_PER_ADDRESS = 200;
  private static final int TCP_ATTACK_PER_ADDRESS = 250;
  private static final List<String> TCP_ATTACKERS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");
  private static final int TCP_REQUESTS = 300;

  @Test
  void usersThatBehaveAreServedWhileIdleAndHalfOpenConnectionsPileUp(RedisServer redis)
      throws Exception {
    // Timeouts long enough that no attacking connection is closed before all are open, so that
    // the connections turned away can be counted exactly. Users and attackers share 127.0.0.1 here,
    // so the per-address cap is raised to the global limit: this test is about the global limit
    // (BoardHttpLimitsIntegrationTests checks the per-address cap).
    HttpOptions http =
        HttpOptions.builder()
            .idleTimeout(Duration.ofSeconds(6))
            .requestReadTimeout(Duration.ofSeconds(5))
            .maxConnections(HTTP_MAX)
            .maxConnectionsPerAddress(HTTP_MAX)
            .build();
    TcpOptions tcp =
        TcpOptions.builder()
            .port(0)
            .idleTimeout(Duration.ofSeconds(8))
            .readTimeout(Duration.ofSeconds(5))
            .frameTimeout(Duration.ofSeconds(6))
            .maxConnections(TCP_MAX)
            .maxConnectionsPerAddress(TCP_PER_ADDRESS)
            .build();
    ExecutorService users = Executors.newFixedThreadPool(HTTP_USERS + 1);
    List<RawHttp> httpAttack = new ArrayList<>();
    List<RawConnection> tcpAttack = new ArrayList<>();
    try (BoardServer board =
            BoardServer.start(
                0, redis.uri(), null, BoardMode.STOWAGE, FeedCompression.NONE, tcp, http, true);
        StowageBoardClient before =
            StowageBoardClient.builder("127.0.0.1", board.tcp().port()).build()) {
      // The users connect first: the HTTP ones keep their connections alive.
      List<RawHttp> httpUsers = new ArrayList<>();
      for (int i = 0; i < HTTP_USERS; i++) {
        RawHttp user = new RawHttp(board.port(), WAIT);
        user.get("/boards?page=1&size=1");
        assertThat(user.readResponse().status()).isEqualTo(200);
        httpUsers.add(user);
      }
      assertThat(before.ping()).succeedsWithin(WAIT);

      AtomicInteger httpOk = new AtomicInteger();
      ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
      List<CompletableFuture<Void>> traffic = new ArrayList<>();
      for (int u = 0; u < HTTP_USERS; u++) {
        RawHttp user = httpUsers.get(u);
        int first = u * HTTP_REQUESTS_PER_USER;
        traffic.add(
            CompletableFuture.runAsync(() -> httpUser(user, first, httpOk, failures), users));
      }
      CompletableFuture<Integer> tcpBefore = tcpUser(before, 100_000, TCP_REQUESTS);

      // The attack, while they work.
      for (int i = 0; i < HTTP_ATTACK; i++) {
        RawHttp idle = new RawHttp(board.port(), WAIT);
        if (i % 7 == 0) {
          idle.send("POST /boards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n");
        }
        httpAttack.add(idle);
      }
      for (String address : TCP_ATTACKERS) {
        for (int i = 0; i < TCP_ATTACK_PER_ADDRESS; i++) {
          RawConnection idle = new RawConnection(board.tcp().port(), WAIT, address);
          if (i % 5 == 0) {
            idle.send(HexFormat.of().parseHex("0000004001")); // a frame begun
          }
          tcpAttack.add(idle);
        }
      }
      // A TCP client that connects in the middle of the attack is served too.
      int during;
      try (StowageBoardClient late =
          StowageBoardClient.builder("127.0.0.1", board.tcp().port()).build()) {
        during = tcpUser(late, 200_000, TCP_REQUESTS / 3).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }

      CompletableFuture.allOf(traffic.toArray(new CompletableFuture[0]))
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      int tcpOk = tcpBefore.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(failures).isEmpty();
      assertThat(httpOk.get()).isEqualTo(HTTP_USERS * HTTP_REQUESTS_PER_USER);
      assertThat(tcpOk).isEqualTo(TCP_REQUESTS);
      assertThat(during).isEqualTo(TCP_REQUESTS / 3);

      // Every attacking connection was closed by the service: turned away (503, 1008), timed
      // out (408, 1002) or idle.
      int shed = 0;
      int timedOut = 0;
      for (RawHttp attacker : httpAttack) {
        String answer = new String(attacker.readToEnd(), StandardCharsets.US_ASCII);
        if (answer.startsWith("HTTP/1.1 503 ")) {
          shed++;
        } else if (answer.startsWith("HTTP/1.1 408 ")) {
          timedOut++;
        } else {
          assertThat(answer).isEmpty();
        }
      }
      assertThat(shed).isEqualTo(HTTP_ATTACK + HTTP_USERS - HTTP_MAX);
      assertThat(timedOut).isPositive();
      int refused = 0;
      for (RawConnection attacker : tcpAttack) {
        byte[] closing = attacker.readToEnd();
        assertThat(closing).hasSizeGreaterThan(11);
        assertThat(closing[4]).isEqualTo((byte) BoardProtocol.REPLY_CLOSING);
        int code = ((closing[9] & 0xff) << 8) | (closing[10] & 0xff);
        assertThat(code)
            .isIn(
                BoardProtocol.CLOSE_IDLE,
                BoardProtocol.CLOSE_READ_TIMEOUT,
                BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS);
        if (code == BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS) {
          refused++;
        }
      }
      assertThat(refused)
          .isEqualTo(TCP_ATTACKERS.size() * (TCP_ATTACK_PER_ADDRESS - TCP_PER_ADDRESS));
      await()
          .atMost(WAIT)
          .until(() -> board.tcp().openConnections() == 0 && board.httpConnections() <= HTTP_USERS);

      // What the users created is all there.
      RawHttp check = new RawHttp(board.port(), WAIT);
      check.get("/boards?page=1&size=1");
      RawHttp.Response newest = check.readResponse();
      assertThat(newest.status()).isEqualTo(200);
      check.close();
      assertThat(before.page(1, 500))
          .succeedsWithin(WAIT)
          .satisfies(
              page ->
                  assertThat(page)
                      .hasSize(
                          HTTP_USERS * HTTP_REQUESTS_PER_USER / 2
                              + TCP_REQUESTS / 2
                              + TCP_REQUESTS / 3 / 2));
      for (RawHttp user : httpUsers) {
        user.close();
      }
    } finally {
      users.shutdownNow();
      for (RawHttp attacker : httpAttack) {
        attacker.close();
      }
      for (RawConnection attacker : tcpAttack) {
        attacker.close();
      }
    }
  }

  /** Alternately creates a post and reads the first page, on one kept-alive connection. */
  private static void httpUser(
      RawHttp user, int first, AtomicInteger ok, ConcurrentLinkedQueue<String> failures) {
    for (int i = 0; i < HTTP_REQUESTS_PER_USER; i++) {
      try {
        if (i % 2 == 0) {
          user.postJson("/boards", JSON.writeValueAsBytes(TestPosts.post(first + i)));
        } else {
          user.get("/boards?page=1&size=25");
        }
        RawHttp.Response response = user.readResponse();
        JsonNode body = JSON.readTree(response.body());
        if (response.status() == 200 && body.get("code").asInt() == 200) {
          ok.incrementAndGet();
        } else {
          failures.add("HTTP " + response.status() + ": " + response.text());
        }
      } catch (IOException | RuntimeException e) {
        failures.add("HTTP request " + (first + i) + ": " + e);
        return;
      }
    }
  }

  /** Creates posts and reads pages over TCP, up to 16 in flight; completes with the successes. */
  private static CompletableFuture<Integer> tcpUser(
      StowageBoardClient client, int first, int requests) {
    return CompletableFuture.supplyAsync(
        () -> {
          int ok = 0;
          for (int from = 0; from < requests; from += 16) {
            List<CompletableFuture<?>> inFlight = new ArrayList<>();
            for (int i = from; i < Math.min(requests, from + 16); i++) {
              inFlight.add(
                  i % 2 == 0 ? client.create(TestPosts.post(first + i)) : client.page(1, 25));
            }
            for (CompletableFuture<?> request : inFlight) {
              request.join();
              ok++;
            }
          }
          return ok;
        });
  }
}
