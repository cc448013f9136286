package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithRedisCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Stowage mode on a real Redis Cluster (three masters, a replica each): the feed's keys in the slot
 * of {@code {board}}, a failover of that slot's master under a write load, and the modes and
 * settings that a cluster refuses.
 */
@WithRedisCluster
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BoardClusterIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int POSTS = 300;
  private static final int WRITERS = 16;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** This class's cluster was started for it: each test starts from empty masters. */
  @BeforeEach
  void emptyMasters(RedisClusterSet cluster) {
    for (RedisServer master : cluster.masters()) {
      master.flushAll();
    }
  }

  @Test
  void theFeedItsCounterAndItsMarkShareTheSlotOfBoard(RedisClusterSet cluster) throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create();
        BoardServer board =
            BoardServer.startOnCluster(
                0,
                cluster.uris(),
                db.r2dbcUrl(),
                FeedCompression.ZSTD_DICT,
                null,
                HttpOptions.defaults(),
                true)) {
      assertThat(board.settings().redisCluster()).isTrue();
      assertThat(board.settings().nearCache())
          .as("the near cache is on by default, as on one server")
          .isTrue();
      List<Long> scores = new ArrayList<>();
      for (int i = 0; i < 70; i++) {
        scores.add(create(board, i).get("score").asLong());
      }
      JsonNode bulk =
          post(board, "/boards/bulk", List.of(BoardPosts.post(70), BoardPosts.post(71)));
      bulk.get("data").forEach(created -> scores.add(created.get("score").asLong()));

      List<Long> listed = new ArrayList<>();
      page(board, 1, 100).forEach(item -> listed.add(item.get("score").asLong()));
      List<Long> newestFirst = new ArrayList<>(scores);
      newestFirst.sort((a, b) -> Long.compare(b, a));
      assertThat(listed).containsExactlyElementsOf(newestFirst);
      assertThat(listed.get(0)).isEqualTo(scores.get(scores.size() - 1));

      RedisServer owner = cluster.masterOf(BoardKeys.CLUSTER_FEED);
      int slot = cluster.slotOf(BoardKeys.CLUSTER_FEED);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(owner.reply("EXISTS", BoardKeys.CLUSTER_COMPLETE)).isEqualTo(1L));
      List<String> expected =
          List.of(
              BoardKeys.CLUSTER_FEED,
              BoardKeys.CLUSTER_COUNTER,
              BoardKeys.CLUSTER_COMPLETE,
              "{board}:b:0",
              "{board}:b:1");
      for (String key : expected) {
        assertThat(owner.reply("EXISTS", key)).as(key).isEqualTo(1L);
        assertThat(cluster.slotOf(key)).as(key).isEqualTo(slot);
      }
      assertThat(owner.reply("HGET", BoardKeys.CLUSTER_COUNTER, BoardKeys.COUNTER_FIELD))
          .isEqualTo(Long.toString(listed.get(0)));
      Set<String> boardKeys = new HashSet<>();
      for (RedisServer master : cluster.masters()) {
        for (Object key : (List<?>) master.reply("KEYS", "*board*")) {
          assertThat(master).as("the master holding " + key).isSameAs(owner);
          assertThat(cluster.slotOf(String.valueOf(key))).as(String.valueOf(key)).isEqualTo(slot);
          // A hold on a sealed bucket a write opened ({board}:h:<n>) lasts a second; its slot is
          // checked above.
          if (!String.valueOf(key).startsWith("{board}:h:")) {
            boardKeys.add(String.valueOf(key));
          }
        }
        assertThat((List<?>) master.reply("KEYS", "counter*")).as("no seed counter").isEmpty();
      }
      assertThat(boardKeys)
          .as("no key of the one-server layout")
          .containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  /**
   * 300 posts from 16 writers; once 80 are acknowledged the master that serves {@code {board}} is
   * killed with SIGKILL, and the posts from the 150th on wait for its replica's promotion. Every
   * post is acknowledged, stored once with a score of its own, and listed from the feed afterwards.
   */
  @Test
  void killingTheMasterOfTheFeedUnderWritersLosesNoAcknowledgedPost(RedisClusterSet cluster)
      throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create();
        BoardServer board =
            BoardServer.startOnCluster(
                0,
                List.of(cluster.seedUri()),
                db.r2dbcUrl(),
                FeedCompression.ZSTD_DICT,
                null,
                HttpOptions.defaults(),
                true)) {
      page(board, 1, 1);
      RedisServer victim = cluster.masterOf(BoardKeys.CLUSTER_FEED);
      Map<String, Long> acknowledged = new ConcurrentHashMap<>();
      Queue<String> failures = new ConcurrentLinkedQueue<>();
      AtomicInteger next = new AtomicInteger();
      CountDownLatch promoted = new CountDownLatch(1);
      ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
      List<Future<?>> running = new ArrayList<>();
      try {
        for (int w = 0; w < WRITERS; w++) {
          running.add(
              writers.submit(
                  () -> {
                    for (int i = next.getAndIncrement(); i < POSTS; i = next.getAndIncrement()) {
                      if (i >= POSTS / 2) {
                        promoted.await();
                      }
                      try {
                        JsonNode created = create(board, 10_000 + i);
                        acknowledged.put(created.get("id").asText(), created.get("score").asLong());
                      } catch (IOException | AssertionError e) {
                        failures.add(i + ": " + e);
                      }
                    }
                    return null;
                  }));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= 80);
        cluster.killMaster(victim);
        cluster.awaitFailover();
        promoted.countDown();
        for (Future<?> writer : running) {
          writer.get(120, TimeUnit.SECONDS);
        }
      } finally {
        promoted.countDown();
        writers.shutdownNow();
      }

      assertThat(failures).isEmpty();
      assertThat(acknowledged).hasSize(POSTS);
      assertThat(new HashSet<>(acknowledged.values())).as("a score of its own each").hasSize(POSTS);
      assertThat(dbCount(db)).isEqualTo(POSTS);
      RedisServer owner = cluster.masterOf(BoardKeys.CLUSTER_FEED);
      assertThat(owner).isNotSameAs(victim);
      // The feed writes that failed while the slot had no master make the next read refill the
      // feed.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                page(board, 1, 1);
                assertThat(owner.reply("EXISTS", BoardKeys.CLUSTER_COMPLETE)).isEqualTo(1L);
                assertThat(feedSize(owner)).isEqualTo(POSTS);
              });
      Map<String, Long> listed = new LinkedHashMap<>();
      for (int p = 1; p <= 2; p++) {
        page(board, p, 200)
            .forEach(item -> listed.put(item.get("id").asText(), item.get("score").asLong()));
      }
      assertThat(listed).as("every acknowledged post is listed, once").isEqualTo(acknowledged);
      List<Long> order = new ArrayList<>(listed.values());
      assertThat(order).isSortedAccordingTo((a, b) -> Long.compare(b, a));
      System.out.printf(
          "board failover: %d/%d acknowledged posts listed after the master of %s"
              + " (port %d) was killed; %d posts in the feed on port %d%n",
          listed.size(),
          POSTS,
          BoardKeys.CLUSTER_FEED,
          victim.port(),
          feedSize(owner),
          owner.port());

      long newest = create(board, 99_999).get("score").asLong();
      assertThat(newest).isGreaterThan(order.get(0));
      assertThat(page(board, 1, 1).get(0).get("score").asLong()).isEqualTo(newest);
      cluster.revive(victim);
    }
  }

  @Test
  void theSeedModesAreRefusedOnACluster(RedisClusterSet cluster) {
    assertThatThrownBy(
            () -> startWith(cluster.seedUri(), Map.of("stowage.board.mode", "seed-json")))
        .rootCause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the seed modes run on one Redis server only, not on a Redis Cluster: seed-json"
                + " keeps the seed's single-server commands (a ReactiveRedisTemplate on one connection,"
                + " the sorted set and counter in two slots); use --mode stowage on a cluster, or"
                + " --redis URL for seed-json");
    assertThatThrownBy(
            () -> startWith(cluster.seedUri(), Map.of("stowage.board.mode", "seed-msgpack")))
        .rootCause()
        .hasMessageStartingWith("the seed modes run on one Redis server only");
    assertThatThrownBy(() -> startWith(cluster.seedUri() + ",,", Map.of()))
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "the Redis Cluster's seed URIs are joined by commas, such as"
                + " redis://10.0.0.1:6379,redis://10.0.0.2:6379, with no empty one; got '"
                + cluster.seedUri()
                + ",,'");
    assertThatThrownBy(
            () ->
                BoardServer.startOnCluster(
                    0, List.of(), null, FeedCompression.NONE, null, HttpOptions.defaults(), true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a Redis Cluster needs at least one seed URI, such as redis://10.0.0.1:6379");
    assertThatThrownBy(
            () ->
                BoardServer.startOnCluster(
                    0,
                    List.of("redis://a:1,redis://b:2"),
                    null,
                    FeedCompression.NONE,
                    null,
                    HttpOptions.defaults(),
                    true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a seed is the URI of one node, such as redis://10.0.0.1:6379, not"
                + " 'redis://a:1,redis://b:2'");
    assertThat(cluster.masters())
        .allSatisfy(
            master -> assertThat(master.reply("DBSIZE")).as("nothing was written").isEqualTo(0L));
  }

  /**
   * Two services on the cluster, each with its near cache: a page read twice is served from memory
   * (no feed script reaches the master of {@code {board}}), and a post through one service is
   * listed by the other once the master's invalidation has reached it.
   */
  @Test
  void withTheNearCacheAPostThroughOneServiceIsListedByTheOther(RedisClusterSet cluster)
      throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create();
        BoardServer one =
            BoardServer.startOnCluster(
                0,
                cluster.uris(),
                db.r2dbcUrl(),
                FeedCompression.NONE,
                null,
                HttpOptions.defaults(),
                true);
        BoardServer other =
            BoardServer.startOnCluster(
                0,
                List.of(cluster.seedUri()),
                db.r2dbcUrl(),
                FeedCompression.NONE,
                null,
                HttpOptions.defaults(),
                true)) {
      long first = create(one, 1).get("score").asLong();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(page(other, 1, 10).get(0).get("score").asLong()).isEqualTo(first));
      RedisServer owner = cluster.masterOf(BoardKeys.CLUSTER_FEED);
      // Once the page is kept (the invalidation of the write itself may still be on its way),
      // reading it again sends nothing to the feed's master.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                owner.reply("CONFIG", "RESETSTAT");
                assertThat(page(other, 1, 10).get(0).get("score").asLong()).isEqualTo(first);
                assertThat(feedReads(owner)).isZero();
              });
      owner.reply("CONFIG", "RESETSTAT");
      for (int i = 0; i < 10; i++) {
        assertThat(page(other, 1, 10)).hasSize(1);
      }
      assertThat(feedReads(owner)).as("pages served from the near cache").isZero();

      long second = create(one, 2).get("score").asLong();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(page(other, 1, 10).get(0).get("score").asLong()).isEqualTo(second));
      assertThat(page(other, 1, 10)).hasSize(2);
    }
  }

  /**
   * The reads (a page is a script, the feed's mark a GET) the master served since its statistics
   * were reset.
   */
  private static long feedReads(RedisServer master) {
    long calls = 0;
    for (String line : String.valueOf(master.reply("INFO", "commandstats")).split("\r\n")) {
      if (line.startsWith("cmdstat_evalsha:")
          || line.startsWith("cmdstat_eval:")
          || line.startsWith("cmdstat_get:")) {
        String rest = line.substring(line.indexOf("calls=") + "calls=".length());
        calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
      }
    }
    return calls;
  }

  /**
   * The service as {@code BoardApplication} starts it from properties, on the cluster {@code redis}
   * names.
   */
  private static void startWith(String redis, Map<String, Object> extra) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("server.port", 0);
    properties.put("server.address", "127.0.0.1");
    properties.put("stowage.board.redis", redis);
    properties.put("stowage.board.redis-cluster", true);
    properties.putAll(extra);
    new SpringApplicationBuilder(BoardApplication.class).properties(properties).run().close();
  }

  /**
   * The posts in the feed, counted on the master that holds it (a sealed bucket's count is in its
   * index member).
   */
  private static long feedSize(RedisServer owner) {
    return (Long)
        owner.reply(
            "EVAL",
            "local n = 0"
                + " for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do"
                + " local c = string.match(b, '^%d+:(%d+)$')"
                + " n = n + (c and tonumber(c) or redis.call('LLEN', KEYS[1] .. ':b:' .. b)) end return n",
            "1",
            BoardKeys.CLUSTER_FEED);
  }

  private JsonNode create(BoardServer board, int i) throws IOException, InterruptedException {
    return post(board, "/boards", BoardPosts.post(i)).get("data");
  }

  private JsonNode post(BoardServer board, String path, Object body)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private JsonNode page(BoardServer board, int page, int size)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(board.url() + "/boards?page=" + page + "&size=" + size))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body()).get("data");
  }

  private static long dbCount(PostgresDatabase db) throws Exception {
    try (var connection = DriverManager.getConnection(db.jdbcUrl());
        var statement = connection.createStatement();
        var result = statement.executeQuery("SELECT count(*) FROM board")) {
      result.next();
      return result.getLong(1);
    }
  }
}
