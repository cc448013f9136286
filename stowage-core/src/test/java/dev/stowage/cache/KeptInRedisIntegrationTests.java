package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.format.Schemas;
import dev.stowage.internal.format.StowageKeys;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The dictionaries and schemas a process writes with are in Redis whenever it writes with them, so
 * that another process reads every value: after Redis restarts from an older snapshot (answering
 * {@code LOADING} for seconds), and while Redis will not take a dictionary.
 */
@WithRedis
class KeptInRedisIntegrationTests {
  private static final Duration TIMEOUT = Duration.ofMillis(500);
  private static final int SAMPLES = 100;
  private static final int SIZE = 16 * 1024;
  private static final String CODEC = Codecs.defaultFor(BoardRecord.class).name();
  private static final Encoding<BoardRecord> LEARNING =
      Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE);

  /**
   * A reader that writes nothing with a dictionary: it finds every dictionary in Redis, or nowhere.
   */
  private static final Encoding<BoardRecord> READING =
      Encoding.defaultFor(BoardRecord.class).compression(Compression.none());

  private static Map<String, BoardRecord> boards(int from, int n) {
    Map<String, BoardRecord> boards = new LinkedHashMap<>();
    for (BoardRecord board : Samples.boards(from, n)) {
      boards.put(board.id(), board);
    }
    return boards;
  }

  private static Envelope.Header header(RedisServer redis, String key) {
    return Envelope.readHeader(RawValues.get(redis, key));
  }

  /** The last member of a feed's bucket list, or null when it has none (sealed, or not written). */
  private static byte @Nullable [] lastMember(RedisServer redis, String bucketKey) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      List<byte[]> last =
          connection.sync().lrange(bucketKey.getBytes(StandardCharsets.UTF_8), -1, -1);
      return last.isEmpty() ? null : last.get(0);
    } finally {
      client.shutdown();
    }
  }

  @Test
  void afterRedisRestartsFromAnOlderSnapshotWhileItLoadsAnotherProcessReadsEveryValueWrittenSince()
      throws Exception {
    // Loading takes about 3 s: 4,000 keys at 0.7 ms each, answering clients (LOADING) every
    // kilobyte.
    try (RedisServer redis =
        RedisServer.start(
            "--key-load-delay", "700", "--loading-process-events-interval-bytes", "1024")) {
      redis.command(
          "EVAL",
          "for i = 1, 4000 do redis.call('SET', 'filler:' .. i, string.rep('x', 1000)) end",
          "0");
      assertThat(redis.command("SAVE"))
          .as("the older snapshot, without the dictionaries and the schema")
          .isEqualTo("+OK");

      try (Stowage writer = Stowage.builder().redis(redis.uri()).commandTimeout(TIMEOUT).build()) {
        RedisCache<String, BoardRecord> cache =
            writer.cache("boards", BoardRecord.class).encoding(LEARNING).build();
        Feed<BoardRecord> feed = writer.feed("board", BoardRecord.class).encoding(LEARNING).build();
        // A bulk write that completes the samples learns in this thread.
        cache.putAll(boards(0, SAMPLES));
        feed.addAll(Samples.boards(0, SAMPLES));
        long cacheDictionary =
            Long.parseLong(RawValues.hget(redis, StowageKeys.learnedByCache("boards"), CODEC), 16);
        long feedDictionary =
            Long.parseLong(RawValues.hget(redis, StowageKeys.learnedByFeed("board"), CODEC), 16);
        cache.put("before", Samples.board(5_000));
        Envelope.Header before = header(redis, "boards:before");
        assertThat(before.dictionaryId())
            .as("written with the learned dictionary")
            .isEqualTo(cacheDictionary);
        int schema = before.schemaVersion();
        assertThat(redis.command("EXISTS", Schemas.key(schema))).isEqualTo(":1");

        redis.stop();
        CompletableFuture<Void> restarting = CompletableFuture.runAsync(redis::restart);
        Map<String, BoardRecord> written = new LinkedHashMap<>();
        List<BoardRecord> added = new ArrayList<>();
        boolean sawLoading = false;
        int writtenOnceUp = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int i = 0; !restarting.isDone() || writtenOnceUp < 100; i++) {
          if (System.nanoTime() > deadline) {
            fail("no 100 writes within 30 s of the restart");
          }
          BoardRecord board = Samples.board(10_000 + i);
          boolean up = restarting.isDone();
          try {
            cache.put("after" + i, board);
            written.put("after" + i, board);
            writtenOnceUp += up ? 1 : 0;
          } catch (CacheUnavailableException e) {
            // Redis is down or loading: the value was not written.
          }
          try {
            feed.add(board);
            added.add(board);
          } catch (CacheUnavailableException e) {
            // Likewise.
          }
          try {
            sawLoading |= redis.command("PING").startsWith("-LOADING");
          } catch (IllegalStateException e) {
            // Not listening yet.
          }
        }
        restarting.join();
        assertThat(sawLoading).as("Redis answered LOADING while the writer wrote").isTrue();
        assertThat(redis.command("EXISTS", "filler:1"))
            .as("restarted from the snapshot")
            .isEqualTo(":1");
        assertThat(redis.command("EXISTS", "boards:before"))
            .as("written after the snapshot")
            .isEqualTo(":0");

        // The writer goes back to its dictionary once Redis holds it again.
        int[] next = {0};
        await("values written with the learned dictionary again")
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(20))
            .ignoreExceptionsInstanceOf(CacheUnavailableException.class)
            .until(
                () -> {
                  String key = "last" + next[0]++;
                  BoardRecord board = Samples.board(20_000 + next[0]);
                  cache.put(key, board);
                  written.put(key, board);
                  return header(redis, "boards:" + key).dictionaryId() == cacheDictionary;
                });
        await("feed entries written with the learned dictionary again")
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(20))
            .ignoreExceptionsInstanceOf(CacheUnavailableException.class)
            .until(
                () -> {
                  BoardRecord board = Samples.board(30_000 + added.size());
                  long score = feed.add(board);
                  added.add(board);
                  byte[] member =
                      lastMember(redis, FeedLayout.bucketKey("board", FeedLayout.bucketOf(score)));
                  return member != null
                      && FeedLayout.score(member) == score
                      && Envelope.readHeader(
                                  Arrays.copyOfRange(
                                      member, FeedLayout.prefixSize(score), member.length))
                              .dictionaryId()
                          == feedDictionary;
                });
        try (Stowage other = Stowage.builder().redis(redis.uri()).build()) {
          RedisCache<String, BoardRecord> reader =
              other.cache("boards", BoardRecord.class).encoding(READING).build();
          assertThat(reader.getAll(written.keySet()))
              .as("every value written since the restart")
              .isEqualTo(written);
          assertThat(reader.stats().decodeFailures()).isZero();
          Feed<BoardRecord> feedReader =
              other.feed("board", BoardRecord.class).encoding(READING).build();
          List<BoardRecord> newestFirst = new ArrayList<>(added);
          Collections.reverse(newestFirst);
          assertThat(feedReader.page(1, added.size()))
              .extracting(Feed.Entry::value)
              .as("every entry added since the restart")
              .containsExactlyElementsOf(newestFirst);
          assertThat(feedReader.decodeFailures()).isZero();
        }
        assertThat(redis.command("EXISTS", DictionaryStore.key(cacheDictionary))).isEqualTo(":1");
        assertThat(redis.command("EXISTS", DictionaryStore.key(feedDictionary))).isEqualTo(":1");
        assertThat(redis.command("EXISTS", Schemas.key(schema)))
            .as("the schema saved again")
            .isEqualTo(":1");
        // Saved in the same pass as the dictionary, after it: the writer may use the dictionary
        // again a moment before the record is back.
        await("the learned dictionary recorded again")
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () ->
                    assertThat(RawValues.hget(redis, StowageKeys.learnedByCache("boards"), CODEC))
                        .isEqualTo(ZstdDictionary.hexId(cacheDictionary)));
      }
    }
  }

  @Test
  void whileRedisWillNotTakeTheDictionaryValuesAreWrittenWithoutItAndWhatRedisHeldStays(
      RedisServer redis) {
    redis.flushAll();
    List<byte[]> payloads = new ArrayList<>();
    for (BoardRecord board : Samples.boards(0, 200)) {
      payloads.add(Codecs.defaultFor(BoardRecord.class).encode(board));
    }
    ZstdDictionary dictionary = ZstdDictionary.train(payloads, 4096);
    String dictionaryKey = DictionaryStore.key(dictionary.id());
    byte[] other = "not this dictionary".getBytes(StandardCharsets.UTF_8);
    RawValues.set(redis, dictionaryKey, other);

    try (Stowage writer = Stowage.builder().redis(redis.uri()).commandTimeout(TIMEOUT).build()) {
      RedisCache<String, BoardRecord> cache =
          writer
              .cache("fixed", BoardRecord.class)
              .encoding(
                  Encoding.defaultFor(BoardRecord.class)
                      .compression(CompressionAccess.zstd(dictionary)))
              .build();
      Map<String, BoardRecord> boards = boards(0, 50);
      cache.putAll(boards);
      cache.put("one", Samples.board(1_000));
      for (String key : boards.keySet()) {
        assertThat(header(redis, "fixed:" + key).hasDictionary())
            .as("written without the dictionary")
            .isFalse();
      }
      assertThat(header(redis, "fixed:one").hasDictionary()).isFalse();
      assertThat(RawValues.get(redis, dictionaryKey)).as("never overwritten").isEqualTo(other);
      Map<String, BoardRecord> all = new LinkedHashMap<>(boards);
      all.put("one", Samples.board(1_000));
      try (Stowage another = Stowage.builder().redis(redis.uri()).build()) {
        RedisCache<String, BoardRecord> reader =
            another.cache("fixed", BoardRecord.class).encoding(READING).build();
        assertThat(reader.getAll(all.keySet())).isEqualTo(all);
        assertThat(reader.stats().decodeFailures()).isZero();
      }

      // Once Redis can take it, the next connection saves it and writes use it again.
      redis.command("DEL", dictionaryKey);
      redis.command("CLIENT", "KILL", "TYPE", "normal");
      await("values written with the dictionary")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .ignoreExceptionsInstanceOf(CacheUnavailableException.class)
          .until(
              () -> {
                cache.put("later", Samples.board(2_000));
                return header(redis, "fixed:later").dictionaryId() == dictionary.id();
              });
      assertThat(RawValues.get(redis, dictionaryKey)).isEqualTo(dictionary.bytes());
      try (Stowage another = Stowage.builder().redis(redis.uri()).build()) {
        RedisCache<String, BoardRecord> reader =
            another.cache("fixed", BoardRecord.class).encoding(READING).build();
        assertThat(reader.get("later")).isEqualTo(Samples.board(2_000));
        assertThat(reader.stats().decodeFailures()).isZero();
      }
    }
  }

  @Test
  void afterRedisRestartsEmptyAWriteWaitsUntilItsSchemaIsInRedisAgain(RedisServer redis) {
    redis.flushAll();
    try (Stowage writer = Stowage.builder().redis(redis.uri()).commandTimeout(TIMEOUT).build()) {
      RedisCache<String, BoardRecord> cache =
          writer.cache("shaped", BoardRecord.class).encoding(READING).build();
      cache.put("first", Samples.board(1));
      String schemaKey = Schemas.key(header(redis, "shaped:first").schemaVersion());
      for (int round = 0; round < 3; round++) {
        redis.restart();
        String key = "after" + round;
        await("a write after the restart")
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(1))
            .ignoreExceptionsInstanceOf(CacheUnavailableException.class)
            .untilAsserted(() -> cache.put(key, Samples.board(2)));
        assertThat(redis.command("EXISTS", schemaKey))
            .as("the schema saved before the value")
            .isEqualTo(":1");
      }
    }
  }

  @Test
  void aDictionaryRedisLostWhileTheConnectionStayedUpIsPutBackWhenACacheStartsUsingIt(
      RedisServer redis) {
    redis.flushAll();
    List<byte[]> payloads = new ArrayList<>();
    for (BoardRecord board : Samples.boards(0, 200)) {
      payloads.add(Codecs.defaultFor(BoardRecord.class).encode(board));
    }
    ZstdDictionary dictionary = ZstdDictionary.train(payloads, 4096);
    Encoding<BoardRecord> fixed =
        Encoding.defaultFor(BoardRecord.class).compression(CompressionAccess.zstd(dictionary));
    try (Stowage writer = Stowage.builder().redis(redis.uri()).build()) {
      writer.cache("first", BoardRecord.class).encoding(fixed).build().put("a", Samples.board(1));
      // An operator empties Redis; the writer's connection stays up, so nothing tells it.
      redis.flushAll();
      RedisCache<String, BoardRecord> second =
          writer.cache("second", BoardRecord.class).encoding(fixed).build();
      second.put("b", Samples.board(2));
      assertThat(header(redis, "second:b").dictionaryId()).isEqualTo(dictionary.id());
      assertThat(
              Arrays.equals(
                  RawValues.get(redis, DictionaryStore.key(dictionary.id())), dictionary.bytes()))
          .as("the dictionary saved again")
          .isTrue();
      try (Stowage another = Stowage.builder().redis(redis.uri()).build()) {
        RedisCache<String, BoardRecord> reader =
            another.cache("second", BoardRecord.class).encoding(READING).build();
        assertThat(reader.get("b")).isEqualTo(Samples.board(2));
        assertThat(reader.stats().decodeFailures()).isZero();
      }
    }
  }
}
