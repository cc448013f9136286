package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.TopicEvents.Event;
import dev.stowage.embedded.KafkaBroker;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.MongoTestServer;
import dev.stowage.testkit.WithKafka;
import dev.stowage.testkit.WithMongo;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The board's process SIGKILLed in the middle of a write load (between a post's commit and its
 * event's publication, for some posts) and started again on the same database: afterwards every
 * acknowledged post has its event, and nothing is in the outbox. On PostgreSQL and on MongoDB
 * (mongo-java-server, a wire-compatible test server, not MongoDB).
 */
@WithKafka
@WithRedis
@WithMongo
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BoardEventsProcessKillIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int WRITERS = 10;

  /**
   * Posts acknowledged before the kill and after the restart. Ten writers keep up to ten posts
   * between their commit and their event's publication whenever the kill comes; a longer load only
   * repeats that.
   */
  private static final int ACKED_BEFORE_KILL = 500;

  private static final int ACKED_AFTER_RESTART = 300;

  @TempDir Path temp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"postgresql", "mongodb"})
  void noAcknowledgedPostIsLeftWithoutItsEventAfterTheProcessIsKilledAndRestarted(
      String store, KafkaBroker kafka, RedisServer redis, MongoTestServer mongo) throws Exception {
    try (StoreUnderTest db = StoreUnderTest.open(store, mongo)) {
      killAndRestartUnderLoad(db, kafka, redis, "board-events-process-kill-" + store);
    }
  }

  private void killAndRestartUnderLoad(
      StoreUnderTest db, KafkaBroker kafka, RedisServer redis, String topic) throws Exception {
    int port = BoardChildProcess.freePort();
    List<String> properties =
        List.of(
            "stowage.board.redis=" + redis.uri(),
            "stowage.board.db=" + db.url(),
            "stowage.board.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "stowage.board.kafka.topic=" + topic);
    Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    AtomicInteger failed = new AtomicInteger();
    BoardChildProcess first = BoardChildProcess.start(port, properties, temp.resolve("first.log"));
    AtomicBoolean writing = new AtomicBoolean(true);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      running.add(
          writers.submit(
              () -> {
                for (int n = 0; writing.get(); n++) {
                  try {
                    HttpResponse<byte[]> response =
                        http.send(
                            HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + port + "/boards"))
                                .timeout(Duration.ofSeconds(10))
                                .header("Content-Type", "application/json")
                                .POST(
                                    HttpRequest.BodyPublishers.ofByteArray(
                                        JSON.writeValueAsBytes(
                                            BoardPosts.post(writer * 1_000_000 + n))))
                                .build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    if (response.statusCode() == 200) {
                      JsonNode data = JSON.readTree(response.body()).get("data");
                      acknowledged.put(data.get("id").asText(), data.get("score").asLong());
                    } else {
                      failed.incrementAndGet();
                    }
                  } catch (IOException e) {
                    // The process is gone: no answer, so nothing acknowledged. Wait until a
                    // process listens on the port again (or the load ends), so that ten writers
                    // retrying a refused connection in a loop do not take the CPU the restarting
                    // JVM needs.
                    failed.incrementAndGet();
                    await()
                        .atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> !writing.get() || accepts(port));
                  }
                }
                return null;
              }));
    }
    BoardChildProcess second = null;
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= ACKED_BEFORE_KILL);
      first.kill();
      int ackedAtKill = acknowledged.size();
      long pendingAtKill = db.pendingEvents();
      second = BoardChildProcess.start(port, properties, temp.resolve("second.log"));
      int before = acknowledged.size();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> acknowledged.size() >= before + ACKED_AFTER_RESTART);
      writing.set(false);
      for (Future<?> writer : running) {
        writer.get(60, TimeUnit.SECONDS);
      }
      long loadEnded = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> db.pendingEvents() == 0);
      long drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - loadEnded);

      List<Event> all = TopicEvents.readAll(kafka.bootstrapServers(), topic);
      List<Event> unique = TopicEvents.deduplicated(all);
      Set<String> stored = db.storedIds();
      System.out.printf(
          "events across a board SIGKILL on %s: %d writers; %d posts acknowledged before"
              + " the kill, when the outbox held %d; %d in all, %d requests unanswered or failed; %d"
              + " posts stored; %d events"
              + " on the topic, %d after deduplication (%d duplicates); outbox empty %d ms after"
              + " the load%n",
          db,
          WRITERS,
          ackedAtKill,
          pendingAtKill,
          acknowledged.size(),
          failed.get(),
          stored.size(),
          all.size(),
          unique.size(),
          all.size() - unique.size(),
          drainMillis);

      assertThat(stored).containsAll(acknowledged.keySet());
      assertThat(unique)
          .extracting(Event::id)
          .containsAll(acknowledged.keySet())
          .containsExactlyInAnyOrderElementsOf(stored);
      for (Event event : unique) {
        Long score = acknowledged.get(event.id());
        if (score != null) {
          assertThat(event.score()).isEqualTo(score);
        }
      }
      TopicEvents.assertScoreOrderPerKey(unique);
    } finally {
      writing.set(false);
      writers.shutdownNow();
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  /** Whether something accepts a TCP connection on the loopback {@code port}. */
  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
