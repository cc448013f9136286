package dev.stowage.bookshop;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatusCode;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * The book shop as its clients see it: a real HTTP client against the running application, over a
 * real redis-server and a fresh PostgreSQL database. The repository's query counts tell whether a
 * request reached the database; the keys are read back from Redis as they are stored.
 */
@WithRedis
@WithPostgres
@SpringBootTest(
    classes = BookshopApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@Isolated("It counts the JVM's threads.")
class BookshopIntegrationTests {
  private static final String DUNE = "9780441013593";
  private static final String HOBBIT = "9780547928227";
  private static final String ORWELL = "9780451524935";
  private static final String AUSTEN = "9780141439518";

  private static RedisServer redis;
  private static PostgresDatabase database;
  private static RedisClient redisClient;
  private static StatefulRedisConnection<byte[], byte[]> redisConnection;

  @Autowired BookRepository repository;
  @LocalServerPort int port;

  private RestClient http;

  @BeforeAll
  static void servers(RedisServer redisServer, PostgresDatabase postgres) {
    redis = redisServer;
    database = postgres;
    redisClient = RedisClient.create(redis.uri());
    redisConnection = redisClient.connect(ByteArrayCodec.INSTANCE);
  }

  @AfterAll
  static void closeRedisClient() {
    redisConnection.close();
    redisClient.shutdown();
  }

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.uri());
    registry.add("spring.datasource.url", () -> database.jdbcUrl());
    registry.add("spring.datasource.username", () -> database.user());
  }

  @BeforeEach
  void client() {
    http = RestClient.create("http://localhost:" + port);
  }

  @Test
  void theFirstGetQueriesTheDatabaseAndTheNextOnesReadTheCache() {
    long queries = repository.bookQueries();

    Book dune = new Book(DUNE, "Dune", "Frank Herbert", 1099);
    assertThat(get(DUNE)).isEqualTo(dune);
    assertThat(get(DUNE)).isEqualTo(dune);
    assertThat(get(DUNE)).isEqualTo(dune);

    assertThat(repository.bookQueries() - queries).isEqualTo(1);
  }

  @Test
  void theBookIsInRedisAsAStowageEnvelopeWithTheTtlOfApplicationYml() {
    get(HOBBIT);

    byte[] value = redis().get(bytes("books::" + HOBBIT));
    assertThat(Encoding.Serializer.isEnvelope(value)).isTrue();
    // The books cache has a type (application.yml): compact MessagePack, the default for a typed
    // cache.
    assertThat(Inspector.header(value).orElseThrow().codecName()).isEqualTo("msgpack");
    // ttl: 10m, less up to the default jitter of 10% (and the time since the write).
    assertThat(redis().pttl(bytes("books::" + HOBBIT)))
        .isBetween(Duration.ofMinutes(8).toMillis(), Duration.ofMinutes(10).toMillis());
  }

  @Test
  void anUnknownIsbnIsCachedAsAbsent() {
    long queries = repository.bookQueries();

    assertThat(status(http.get().uri("/books/{isbn}", "0000000000000")))
        .isEqualTo(HttpStatusCode.valueOf(404));
    assertThat(status(http.get().uri("/books/{isbn}", "0000000000000")))
        .isEqualTo(HttpStatusCode.valueOf(404));

    assertThat(repository.bookQueries() - queries).isEqualTo(1);
    // Spring's cached null, in an envelope like any value, for the cache's TTL.
    assertThat(Encoding.Serializer.isEnvelope(redis().get(bytes("books::0000000000000")))).isTrue();
    assertThat(redis().pttl(bytes("books::0000000000000")))
        .isBetween(Duration.ofMinutes(8).toMillis(), Duration.ofMinutes(10).toMillis());
  }

  @Test
  void aPutIsSeenByTheNextGetWithoutAQuery() {
    get(ORWELL);
    long queries = repository.bookQueries();

    Book cheaper = new Book(ORWELL, "Nineteen Eighty-Four", "George Orwell", 799);
    assertThat(http.put().uri("/books/{isbn}", ORWELL).body(cheaper).retrieve().body(Book.class))
        .isEqualTo(cheaper);

    assertThat(get(ORWELL)).isEqualTo(cheaper);
    assertThat(repository.bookQueries() - queries).isZero();
    // And the database has it too: once the entry is gone, the next GET reads the same book back.
    redis().del(bytes("books::" + ORWELL));
    assertThat(get(ORWELL)).isEqualTo(cheaper);
    assertThat(repository.bookQueries() - queries).isEqualTo(1);
  }

  @Test
  void aDeleteEvictsTheBookAndTheNextGetQueriesTheDatabase() {
    Book book = new Book("9780000000001", "A Book to Delete", "Anonymous", 100);
    http.put().uri("/books/{isbn}", book.isbn()).body(book).retrieve().toBodilessEntity();
    assertThat(get(book.isbn())).isEqualTo(book);
    long queries = repository.bookQueries();

    assertThat(status(http.delete().uri("/books/{isbn}", book.isbn())))
        .isEqualTo(HttpStatusCode.valueOf(204));

    assertThat(redis().exists(bytes("books::" + book.isbn()))).isZero();
    assertThat(status(http.get().uri("/books/{isbn}", book.isbn())))
        .isEqualTo(HttpStatusCode.valueOf(404));
    assertThat(repository.bookQueries() - queries).isEqualTo(1);
  }

  @Test
  void aSaleEvictsEveryBestsellerList() {
    Bestsellers top2 = bestsellers(2);
    bestsellers(2);
    bestsellers(4);
    long queries = repository.bestsellerQueries();
    assertThat(redis().exists(bytes("bestsellers::2"), bytes("bestsellers::4"))).isEqualTo(2);
    // ttl: 1m with no jitter.
    assertThat(redis().pttl(bytes("bestsellers::2")))
        .isBetween(Duration.ofSeconds(50).toMillis(), Duration.ofMinutes(1).toMillis());

    // Austen's one copy becomes eleven: first place.
    assertThat(status(http.post().uri("/books/{isbn}/sales", AUSTEN).body(new Sale(10))))
        .isEqualTo(HttpStatusCode.valueOf(204));

    assertThat(redis().exists(bytes("bestsellers::2"), bytes("bestsellers::4"))).isZero();
    Bestsellers after = bestsellers(2);
    assertThat(after).isNotEqualTo(top2);
    assertThat(after.ranking().get(0).book().isbn()).isEqualTo(AUSTEN);
    assertThat(after.ranking().get(0).copiesSold()).isEqualTo(11);
    bestsellers(4);
    assertThat(repository.bestsellerQueries() - queries).isEqualTo(2);
  }

  /**
   * Twenty clients ask for a list that is not cached while the sale table is locked: only one of
   * them queries (and waits for the lock), the others wait for its result; then all get it.
   */
  @Test
  void concurrentRequestsForTheSameBestsellersShareOneQuery() throws Exception {
    int clients = 20;
    int limit = 3;
    long queries = repository.bestsellerQueries();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try (Connection lock = DriverManager.getConnection(database.jdbcUrl());
        Connection monitor = DriverManager.getConnection(database.jdbcUrl())) {
      lock.setAutoCommit(false);
      try (Statement statement = lock.createStatement()) {
        statement.execute("LOCK TABLE sale IN ACCESS EXCLUSIVE MODE");
      }
      List<Future<Bestsellers>> results = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        results.add(pool.submit(() -> bestsellers(limit)));
      }

      // All twenty requests are in the cached method, and one query waits for the lock.
      await("all " + clients + " requests in bestsellers(), one query waiting for the lock")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> requestsIn("bestsellers") == clients && queriesWaitingForALock(monitor) == 1);
      lock.rollback();

      Bestsellers first = results.get(0).get();
      assertThat(first.ranking()).hasSize(limit);
      for (Future<Bestsellers> result : results) {
        assertThat(result.get()).isEqualTo(first);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(repository.bestsellerQueries() - queries).isEqualTo(1);
    assertThat(bestsellers(limit)).isEqualTo(repository.bestsellers(limit));
  }

  @Test
  void aPutOfABookWithAnotherIsbnIsRefusedAndCachesNothing() {
    Book book = new Book("9780000000002", "Misfiled", "Anonymous", 100);

    String error =
        http.put()
            .uri("/books/{isbn}", "9780000000003")
            .body(book)
            .exchange(
                (request, response) -> {
                  assertThat(response.getStatusCode()).isEqualTo(HttpStatusCode.valueOf(400));
                  return new String(response.getBody().readAllBytes(), UTF_8);
                });
    assertThat(error)
        .contains("the book's ISBN 9780000000002 is not the ISBN in the path, 9780000000003");

    assertThat(redis().exists(bytes("books::9780000000002"), bytes("books::9780000000003")))
        .isZero();
    assertThat(status(http.get().uri("/books/{isbn}", "9780000000003")))
        .isEqualTo(HttpStatusCode.valueOf(404));
  }

  private Book get(String isbn) {
    return http.get().uri("/books/{isbn}", isbn).retrieve().body(Book.class);
  }

  private Bestsellers bestsellers(int limit) {
    return http.get().uri("/bestsellers?limit={limit}", limit).retrieve().body(Bestsellers.class);
  }

  private static HttpStatusCode status(RestClient.RequestHeadersSpec<?> request) {
    return request.exchange((req, res) -> res.getStatusCode());
  }

  private static RedisCommands<byte[], byte[]> redis() {
    return redisConnection.sync();
  }

  private static byte[] bytes(String key) {
    return key.getBytes(UTF_8);
  }

  /** The threads of this JVM (the server's among them) inside BookService's {@code method}. */
  private static long requestsIn(String method) {
    return Thread.getAllStackTraces().values().stream()
        .filter(
            stack ->
                Arrays.stream(stack)
                    .anyMatch(
                        frame ->
                            frame.getMethodName().equals(method)
                                && frame.getClassName().startsWith(BookService.class.getName())))
        .count();
  }

  private static long queriesWaitingForALock(Connection monitor) throws SQLException {
    try (Statement statement = monitor.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND backend_type = 'client backend'"
                    + " AND wait_event_type = 'Lock'")) {
      row.next();
      return row.getLong(1);
    }
  }
}
