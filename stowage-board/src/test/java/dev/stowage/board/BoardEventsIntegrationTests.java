package dev.stowage.board;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.TopicEvents.Event;
import dev.stowage.board.events.BoardEventOptions;
import dev.stowage.board.events.BoardEvents;
import dev.stowage.board.events.EventStatus;
import dev.stowage.board.events.PostCreatedEvent;
import dev.stowage.embedded.KafkaBroker;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.MongoTestServer;
import dev.stowage.testkit.WithKafka;
import dev.stowage.testkit.WithMongo;
import dev.stowage.testkit.WithRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Kafka event for every created post, through the outbox, with a real broker, a real Redis and a
 * real PostgreSQL (or H2), or MongoDB on mongo-java-server (a wire-compatible test server, not
 * MongoDB): the broker killed under a write load, and the broker down when the service starts.
 */
@WithKafka
@WithRedis
@WithMongo
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BoardEventsIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int WRITERS = 20;

  /**
   * The broker is killed this long into the load and restarted this long after the kill (the
   * issue's 20 s and 10 s, shortened: a second of load or of outage is like the next), and the load
   * goes on for {@link #AFTER_RESTART} once the restarted broker answers.
   */
  private static final Duration KILL_AT = Duration.ofSeconds(3);

  private static final Duration OUTAGE = Duration.ofSeconds(2);
  private static final Duration AFTER_RESTART = Duration.ofSeconds(2);

  /**
   * 20 writers, some of whose posts (alone or in a bulk) the database rejects; the broker SIGKILLed
   * at 3 s and restarted 2 s later on the same ports and data, the load going on for 2 s after the
   * restart: posts are acknowledged during the outage and after it, every acknowledged post has
   * exactly one event once deduplicated by id, every stored post has one and no rejected post has
   * any, the events come in score order per key, and the outbox empties after the restart. On
   * PostgreSQL (an outbox table) and on MongoDB (the event in the post's document; the server is
   * mongo-java-server, a wire-compatible test server, not MongoDB).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"postgresql", "mongodb"})
  void everyAcknowledgedPostHasOneEventInScoreOrderThroughABrokerKillAndRestart(
      String store, KafkaBroker kafka, RedisServer redis, MongoTestServer mongo) throws Exception {
    String topic = "board-events-kill-" + store;
    try (StoreUnderTest db = StoreUnderTest.open(store, mongo);
        BoardServer board = start(redis, db.url(), kafka, topic, 1_000_000)) {
      db.rejectMarkedPosts();
      BoardEvents events = Objects.requireNonNull(board.events());
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      Map<String, Long> acknowledged = new ConcurrentHashMap<>();
      AtomicInteger rejected = new AtomicInteger();
      AtomicInteger unexpected = new AtomicInteger();
      AtomicLong maxPending = new AtomicLong();
      long started = System.nanoTime();
      // The writers stop once the restarted broker has answered for AFTER_RESTART.
      AtomicLong end = new AtomicLong(Long.MAX_VALUE);
      ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        running.add(
            writers.submit(
                () -> {
                  for (int n = 0; System.nanoTime() < end.get(); n++) {
                    write(http, board, writer, n, acknowledged, rejected, unexpected);
                  }
                  return null;
                }));
      }
      await()
          .atMost(KILL_AT.plusSeconds(5))
          .until(() -> System.nanoTime() - started >= KILL_AT.toNanos());
      kafka.kill();
      long killed = System.nanoTime();
      int ackedAtKill = acknowledged.size();
      await()
          .atMost(OUTAGE.plusSeconds(5))
          .until(
              () -> {
                maxPending.accumulateAndGet(events.status().pending(), Math::max);
                return System.nanoTime() - killed >= OUTAGE.toNanos();
              });
      int ackedAtRestart = acknowledged.size();
      kafka.restart();
      long restarted = System.nanoTime();
      end.set(restarted + AFTER_RESTART.toNanos());
      int ackedAtRestarted = acknowledged.size();
      // The outage's backlog is gone once the oldest pending event is younger than the outage.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                EventStatus status = events.status();
                return status.pending() == 0 || status.oldestPendingAge().toMillis() < 1000;
              });
      long backlogDrainedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
      for (Future<?> writer : running) {
        writer.get(60, TimeUnit.SECONDS);
      }
      writers.shutdown();
      long loadEnded = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> db.pendingEvents() == 0);
      long finalDrainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - loadEnded);

      List<Event> all = TopicEvents.readAll(kafka.bootstrapServers(), topic);
      List<Event> unique = TopicEvents.deduplicated(all);
      Set<String> stored = db.storedIds();
      System.out.printf(
          "events under a broker kill on %s: %d writers, broker killed at %d s (%d posts"
              + " acknowledged then), restarted %d s later (%d acknowledged then) in %d ms, load"
              + " for %d s more; %d posts acknowledged, %d rejected by the database; %d events on"
              + " the topic, %d after"
              + " deduplication (%d duplicates); most pending during the outage %d; the outage's"
              + " backlog drained %d ms after the restart, the outbox empty %d ms after the load%n",
          db,
          WRITERS,
          KILL_AT.toSeconds(),
          ackedAtKill,
          OUTAGE.toSeconds(),
          ackedAtRestart,
          kafka.lastStartTime().toMillis(),
          AFTER_RESTART.toSeconds(),
          acknowledged.size(),
          rejected.get(),
          all.size(),
          unique.size(),
          all.size() - unique.size(),
          maxPending.get(),
          backlogDrainedMillis,
          finalDrainMillis);

      assertThat(unexpected.get()).as("answers other than 200 or the rejection's 500").isZero();
      assertThat(db.pendingEvents()).isZero();
      assertThat(rejected.get()).isPositive();
      assertThat(maxPending.get()).as("events waited while the broker was down").isPositive();
      assertThat(ackedAtKill).as("posts acknowledged before the kill").isPositive();
      assertThat(ackedAtRestart)
          .as("posts acknowledged while the broker was down")
          .isGreaterThan(ackedAtKill);
      assertThat(acknowledged.size())
          .as("posts acknowledged after the restarted broker answered")
          .isGreaterThan(ackedAtRestarted);
      assertThat(stored).containsAll(acknowledged.keySet());
      assertThat(unique).extracting(Event::id).containsExactlyInAnyOrderElementsOf(stored);
      assertThat(unique)
          .allSatisfy(
              event -> {
                assertThat(event.key()).isEqualTo(BoardEvents.BOARD);
                assertThat(event.version()).isEqualTo(PostCreatedEvent.VERSION);
                assertThat(event.post().get("id").asText()).isEqualTo(event.id());
                assertThat(event.post().get("title").asText())
                    .isNotEqualTo(DatabaseRejection.TITLE);
              });
      for (Event event : unique) {
        Long score = acknowledged.get(event.id());
        if (score != null) {
          assertThat(event.score()).as("score of %s", event.id()).isEqualTo(score);
        }
      }
      TopicEvents.assertScoreOrderPerKey(unique);
    }
  }

  /**
   * The broker down when the service starts: the service starts and takes posts, beyond the backlog
   * limit too, its status shows them waiting and over the limit, and they are published in order
   * once the broker is up. On H2, the in-memory database of record.
   */
  @Test
  void theServiceStartsAndTakesPostsWhileKafkaIsDownAndPublishesThemOnceItIsUp(
      KafkaBroker kafka, RedisServer redis) throws Exception {
    String topic = "board-events-late";
    kafka.kill();
    try (BoardServer board = start(redis, null, kafka, topic, 10)) {
      BoardEvents events = Objects.requireNonNull(board.events());
      HttpClient http = HttpClient.newHttpClient();
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < 10; i++) {
        ids.add(
            post(http, board, "/boards", JSON.writeValueAsBytes(BoardPosts.post(i)))
                .get("data")
                .get("id")
                .asText());
      }
      JsonNode bulk =
          post(
              http,
              board,
              "/boards/bulk",
              JSON.writeValueAsBytes(
                  List.of(BoardPosts.post(10), BoardPosts.post(11), BoardPosts.post(12))));
      bulk.get("data").forEach(item -> ids.add(item.get("id").asText()));

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> events.status().pending() == 13 && events.status().lastError() != null);
      EventStatus waiting = events.status();
      assertThat(waiting.overLimit()).isTrue();
      assertThat(waiting.oldestPendingAge()).isPositive();
      assertThat(waiting.published()).isZero();
      System.out.println("Kafka down at start: " + waiting);
      // Health shows the backlog; the service stays UP since it accepts posts.
      JsonNode behind = health(http, board);
      assertThat(behind.get("status").asText()).isEqualTo("UP");
      assertThat(behind.at("/components/events/status").asText()).isEqualTo("DEGRADED");
      assertThat(behind.at("/components/events/details/pending").asLong()).isEqualTo(13);
      assertThat(behind.at("/components/events/details/oldestPendingMs").asLong()).isPositive();
      assertThat(behind.at("/components/events/details/error").asText()).isNotEmpty();

      kafka.restart();
      await().atMost(Duration.ofSeconds(60)).until(() -> events.status().pending() == 0);
      assertThat(events.status().overLimit()).isFalse();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                JsonNode caughtUp = health(http, board);
                assertThat(caughtUp.at("/components/events/status").asText()).isEqualTo("UP");
                assertThat(caughtUp.at("/components/events/details/pending").asLong()).isZero();
                assertThat(caughtUp.at("/components/events/details/published").asLong())
                    .isEqualTo(13);
              });
      List<Event> published = TopicEvents.readAll(kafka.bootstrapServers(), topic);
      assertThat(published).extracting(Event::id).containsExactlyInAnyOrderElementsOf(ids);
      TopicEvents.assertScoreOrderPerKey(published);
    } finally {
      if (!kafka.isRunning()) {
        kafka.restart();
      }
    }
  }

  /** {@code /actuator/health}, whatever its status. */
  private static JsonNode health(HttpClient http, BoardServer board) throws Exception {
    HttpResponse<byte[]> response =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + "/actuator/health")).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    return JSON.readTree(response.body());
  }

  private static BoardServer start(
      RedisServer redis, String dbUrl, KafkaBroker kafka, String topic, long backlogLimit) {
    return BoardServer.start(
        0,
        redis.uri(),
        dbUrl,
        BoardMode.STOWAGE,
        FeedCompression.ZSTD_DICT,
        null,
        HttpOptions.defaults(),
        true,
        BoardEventOptions.builder(kafka.bootstrapServers())
            .topic(topic)
            .backlogLimit(backlogLimit)
            .build());
  }

  /**
   * One request of writer {@code w}: writers 0 to 3 send every third post as one the database
   * rejects, writer 4 sends bulks of three with every fourth bulk holding one, the others valid
   * posts.
   */
  private static void write(
      HttpClient http,
      BoardServer board,
      int w,
      int n,
      Map<String, Long> acknowledged,
      AtomicInteger rejected,
      AtomicInteger unexpected)
      throws Exception {
    int index = w * 1_000_000 + n;
    boolean bulk = w == 4;
    boolean reject = w < 4 ? n % 3 == 2 : bulk && n % 4 == 3;
    Object body;
    if (bulk) {
      List<Map<String, Object>> posts =
          new ArrayList<>(List.of(BoardPosts.post(index), BoardPosts.post(index + 500_000)));
      posts.add(reject ? DatabaseRejection.post() : BoardPosts.post(index + 700_000));
      body = posts;
    } else {
      body = reject ? DatabaseRejection.post() : BoardPosts.post(index);
    }
    HttpResponse<byte[]> response =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + (bulk ? "/boards/bulk" : "/boards")))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (reject && response.statusCode() == 500) {
      rejected.incrementAndGet();
    } else if (!reject && response.statusCode() == 200) {
      JsonNode data = JSON.readTree(response.body()).get("data");
      for (JsonNode item : data.isArray() ? data : List.of(data)) {
        acknowledged.put(item.get("id").asText(), item.get("score").asLong());
      }
    } else {
      unexpected.incrementAndGet();
    }
  }

  private static JsonNode post(HttpClient http, BoardServer board, String path, byte[] body)
      throws Exception {
    HttpResponse<byte[]> response =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).as(new String(response.body(), UTF_8)).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
