package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.AsyncFeed;
import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@WithRedis
class FeedIntegrationTests {
  private static Stowage stowage;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> raw;

  @BeforeAll
  static void connect(RedisServer redis) {
    stowage = Stowage.builder().redis(redis.uri()).build();
    client = RedisClient.create(redis.uri());
    raw = client.connect(ByteArrayCodec.INSTANCE);
  }

  @AfterAll
  static void close() {
    raw.close();
    client.shutdown();
    stowage.close();
  }

  @BeforeEach
  void emptyRedis(RedisServer redis) {
    redis.flushAll();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static Feed<BoardRecord> board() {
    return stowage.feed("board", BoardRecord.class).chunkSize(10).build();
  }

  @Test
  void reservedScoresOnlyGrowAndALostCounterIsNotCountedFromZero(RedisServer redis) {
    AsyncFeed<BoardRecord> feed = board().async();
    assertThat(feed.reserveScores(3, 0).join()).as("no counter yet").isEmpty();
    assertThat(feed.raiseCounter(100).join()).isEqualTo(100);
    assertThat(feed.reserveScores(3, 0).join()).hasValue(101);
    assertThat(feed.reserveScores(2, 500).join()).as("lifted to the floor first").hasValue(501);
    assertThat(feed.raiseCounter(10).join()).as("never lowered").isEqualTo(502);

    redis.flushAll();
    assertThat(feed.reserveScores(1, 502).join()).as("a lost counter").isEmpty();
    feed.raiseCounter(502).join();
    assertThat(feed.reserveScores(1, 0).join()).hasValue(503);
    assertThatThrownBy(() -> feed.reserveScores(0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> feed.raiseCounter(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theBlockingViewReservesScoresAndTheAsyncViewAnswersWhatTheBlockingOneDoes() {
    Feed<BoardRecord> feed = board();
    assertThat(feed.reserveScores(2, 0)).as("no counter yet").isEmpty();
    assertThat(feed.raiseCounter(40)).isEqualTo(40);
    assertThat(feed.reserveScores(2, 0)).hasValue(41);
    assertThat(feed.raiseCounter(5)).as("never lowered").isEqualTo(42);
    assertThatThrownBy(() -> feed.reserveScores(1, -1))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(feed.async().name()).isEqualTo(feed.name()).isEqualTo("board");
    assertThat(feed.async().decodeFailures()).isEqualTo(feed.decodeFailures()).isZero();
  }

  private static List<Long> scores(List<Feed.Entry<BoardRecord>> page) {
    return page.stream().map(Feed.Entry::score).toList();
  }

  @Test
  void anEmptyFeedHasNoPages() {
    Feed<BoardRecord> feed = board();
    assertThat(feed.size()).isZero();
    assertThat(feed.page(1, 10)).isEmpty();
    assertThat(feed.page(5, 10)).isEmpty();
  }

  @Test
  void addGivesScoresFromTheSeedsCounterAndPagesAreNewestFirst() {
    Feed<BoardRecord> feed = board();
    for (int i = 1; i <= 25; i++) {
      assertThat(feed.add(Samples.board(i))).isEqualTo(i);
    }
    assertThat(
            new String(raw.sync().hget(bytes("counter"), bytes("board")), StandardCharsets.UTF_8))
        .isEqualTo("25");
    // Buckets of 64 scores: scores 1 to 25 all live in bucket 0, the index names it once.
    assertThat(raw.sync().llen(bytes("board:b:0"))).isEqualTo(25);
    assertThat(raw.sync().zcard(bytes("board"))).isEqualTo(1);

    List<Feed.Entry<BoardRecord>> first = feed.page(1, 10);
    assertThat(scores(first)).containsExactly(25L, 24L, 23L, 22L, 21L, 20L, 19L, 18L, 17L, 16L);
    assertThat(first.get(0).value()).isEqualTo(Samples.board(25));
    assertThat(scores(feed.page(3, 10)))
        .as("the last, partial page")
        .containsExactly(5L, 4L, 3L, 2L, 1L);
    assertThat(feed.page(3, 10).get(4).value()).isEqualTo(Samples.board(1));
    assertThat(feed.page(4, 10)).as("past the end").isEmpty();
    assertThat(scores(feed.page(1, 25))).hasSize(25);
    assertThat(feed.size()).isEqualTo(25);
  }

  @Test
  void equalValuesAreSeparateEntries() {
    Feed<BoardRecord> feed = board();
    BoardRecord same = Samples.board(3);
    long a = feed.add(same);
    long b = feed.add(same);
    List<Long> c = feed.addAll(List.of(same, same));

    assertThat(feed.size()).isEqualTo(4);
    assertThat(feed.page(1, 10)).extracting(Feed.Entry::value).containsOnly(same).hasSize(4);
    assertThat(scores(feed.page(1, 10))).containsExactly(c.get(1), c.get(0), b, a);
    assertThat(feed.remove(b)).isTrue();
    assertThat(scores(feed.page(1, 10))).containsExactly(c.get(1), c.get(0), a);
  }

  @ParameterizedTest(name = "{0} values")
  @ValueSource(ints = {0, 1, 10, 11, 1000})
  void addAllReservesConsecutiveScoresTheLastValueNewest(int n) {
    Feed<BoardRecord> feed = board();
    feed.add(Samples.board(0));
    List<BoardRecord> values = Samples.boards(1, n);

    List<Long> scores = feed.addAll(values);

    assertThat(scores).containsExactlyElementsOf(LongStream.rangeClosed(2, n + 1).boxed().toList());
    assertThat(feed.size()).isEqualTo(n + 1);
    List<Feed.Entry<BoardRecord>> all = feed.page(1, Feed.MAX_PAGE_SIZE);
    assertThat(all).hasSize(n + 1);
    for (int i = 0; i < n; i++) {
      assertThat(all.get(n - 1 - i)).isEqualTo(new Feed.Entry<>(i + 2L, values.get(i)));
    }
    assertThat(feed.add(Samples.board(0))).isEqualTo(n + 2);
    assertThat(feed.page(1, 1))
        .as("the script's prefix for a score of any length")
        .containsExactly(new Feed.Entry<>(n + 2L, Samples.board(0)));
  }

  @Test
  void largeScoresKeepTheirPrefix() {
    Feed<BoardRecord> feed = board();
    long large = (1L << 40) + 5;
    raw.sync().hset(bytes("counter"), bytes("board"), bytes(Long.toString(large)));

    assertThat(feed.add(Samples.board(1))).isEqualTo(large + 1);
    assertThat(feed.addAll(List.of(Samples.board(2)))).containsExactly(large + 2);
    feed.putAll(Map.of(large + 10, Samples.board(3)));

    assertThat(feed.page(1, 10))
        .containsExactly(
            new Feed.Entry<>(large + 10, Samples.board(3)),
            new Feed.Entry<>(large + 2, Samples.board(2)),
            new Feed.Entry<>(large + 1, Samples.board(1)));
    assertThat(feed.add(Samples.board(4))).isEqualTo(large + 11);
  }

  @Test
  void invalidPagesAndSizesAreRejected() {
    Feed<BoardRecord> feed = board();
    assertThatThrownBy(() -> feed.page(0, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("page");
    assertThatThrownBy(() -> feed.page(-1, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> feed.page(1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size");
    assertThatThrownBy(() -> feed.page(1, Feed.MAX_PAGE_SIZE + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> feed.async().page(0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(feed.page(Integer.MAX_VALUE, Feed.MAX_PAGE_SIZE))
        .as("a far page is empty, not an overflow")
        .isEmpty();
  }

  @Test
  void putAllReplacesEntriesAtTheirScoresAndRaisesTheCounter() {
    Feed<BoardRecord> feed = board();
    feed.addAll(Samples.boards(1, 3));
    Map<Long, BoardRecord> refill = new LinkedHashMap<>();
    refill.put(2L, Samples.board(200));
    refill.put(40L, Samples.board(40));
    feed.putAll(refill);

    assertThat(feed.size()).isEqualTo(4);
    assertThat(feed.page(1, 10)).extracting(Feed.Entry::score).containsExactly(40L, 3L, 2L, 1L);
    assertThat(feed.page(1, 10).get(2).value()).isEqualTo(Samples.board(200));
    assertThat(feed.add(Samples.board(41))).isEqualTo(41);
    assertThatThrownBy(() -> feed.putAll(Map.of(0L, Samples.board(1))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void everyOperationRefusesTheSameScoresOutOfRange() {
    Feed<BoardRecord> feed = board();
    feed.add(Samples.board(1));
    for (long score :
        new long[] {-1, 0, FeedLayout.MAX_SCORE + 1, Long.MIN_VALUE, Long.MAX_VALUE}) {
      String message = "scores must be 1 to 2^53, got " + score;
      assertThatThrownBy(() -> feed.remove(score))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(message);
      assertThatThrownBy(() -> feed.async().remove(score))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(message);
      assertThatThrownBy(() -> feed.putAll(Map.of(score, Samples.board(2))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(message);
      assertThatThrownBy(() -> feed.async().putAll(Map.of(score, Samples.board(2))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(message);
    }
    assertThat(feed.remove(FeedLayout.MAX_SCORE)).isFalse();
    assertThat(feed.page(1, 10)).extracting(Feed.Entry::score).containsExactly(1L);
  }

  @Test
  void undecodableMembersAreSkippedAndCounted() {
    Feed<BoardRecord> feed = board();
    feed.add(Samples.board(1));
    // Written behind the feed's back into bucket 1: an unknown codec, a truncated prefix, no
    // envelope.
    raw.sync()
        .rpush(
            bytes("board:b:1"),
            new byte[] {100, (byte) 0xC1, 0x10, 0x7F, 0x00, 1, 2, 3},
            new byte[] {(byte) 0x83},
            new byte[] {102, '{', '}'});
    raw.sync().zadd(bytes("board"), 1, bytes("1"));
    raw.sync().hset(bytes("counter"), bytes("board"), bytes("102"));
    long good = feed.add(Samples.board(5));

    List<Feed.Entry<BoardRecord>> page = feed.page(1, 10);
    assertThat(scores(page)).containsExactly(good, 1L);
    assertThat(feed.decodeFailures()).isEqualTo(3);
  }

  @Test
  void membersAreTheScoreAndTheEnvelopeAsFeedLayoutSays() {
    Feed<BoardRecord> feed = board();
    feed.addAll(Samples.boards(1, 3));

    List<byte[]> members = raw.sync().lrange(bytes(FeedLayout.bucketKey("board", 0)), 0, -1);
    assertThat(members).extracting(FeedLayout::score).containsExactly(1L, 2L, 3L);
    byte[] envelope = FeedLayout.envelope(members.get(2));
    assertThat(envelope[0]).isEqualTo((byte) 0xC1);
    assertThat(EnvelopeCodec.builder(Codecs.defaultFor(BoardRecord.class)).build().decode(envelope))
        .isEqualTo(Samples.board(3));
  }

  @Test
  void keyAndCounterCanBeChosen() {
    Feed<BoardRecord> feed =
        stowage
            .feed("posts", BoardRecord.class)
            .key("feeds:posts")
            .counter("feeds:counters", "p")
            .build();
    feed.add(Samples.board(1));
    assertThat(raw.sync().llen(bytes("feeds:posts:b:0"))).isEqualTo(1);
    assertThat(raw.sync().zcard(bytes("feeds:posts"))).isEqualTo(1);
    assertThat(
            new String(
                raw.sync().hget(bytes("feeds:counters"), bytes("p")), StandardCharsets.UTF_8))
        .isEqualTo("1");
    feed.clear();
    assertThat(feed.size()).isZero();
    assertThat(raw.sync().exists(bytes("feeds:posts"), bytes("feeds:posts:b:0"))).isZero();
    assertThat(feed.add(Samples.board(2))).as("scores are never reused").isEqualTo(2);
  }

  @Test
  void pagesCrossBucketsAtEveryOffset() {
    Feed<BoardRecord> feed = board();
    feed.addAll(Samples.boards(1, 200));
    assertThat(raw.sync().zcard(bytes("board"))).as("buckets 0 to 3").isEqualTo(4);
    for (int size : new int[] {1, 7, 25, 64, 65, 199, 200}) {
      for (int page = 1; (long) (page - 1) * size < 210; page++) {
        long newest = 200 - (long) (page - 1) * size;
        List<Long> expected =
            LongStream.iterate(newest, s -> s - 1).limit(size).filter(s -> s >= 1).boxed().toList();
        assertThat(scores(feed.page(page, size)))
            .as("page %d of %d", page, size)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void putAllInsertsAnywhereAndRemoveEmptiesBuckets() {
    Feed<BoardRecord> feed = board();
    Map<Long, BoardRecord> sparse = new LinkedHashMap<>();
    for (long score : new long[] {70_000, 5, 130, 64, 63, 6, 129, 1}) {
      sparse.put(score, Samples.board(score));
    }
    feed.putAll(sparse);
    feed.putAll(Map.of(6L, Samples.board(600)));

    assertThat(scores(feed.page(1, 20))).containsExactly(70_000L, 130L, 129L, 64L, 63L, 6L, 5L, 1L);
    assertThat(feed.page(1, 20).get(5).value())
        .as("replaced in place")
        .isEqualTo(Samples.board(600));
    assertThat(feed.size()).isEqualTo(8);
    assertThat(feed.add(Samples.board(1))).isEqualTo(70_001);

    assertThat(feed.remove(64)).isTrue();
    assertThat(feed.remove(64)).isFalse();
    assertThat(feed.remove(999)).isFalse();
    assertThat(raw.sync().exists(bytes("board:b:1"))).as("bucket 1 is empty and gone").isZero();
    assertThat(raw.sync().zscore(bytes("board"), bytes("1"))).isNull();
    assertThat(scores(feed.page(2, 3))).containsExactly(129L, 63L, 6L);
    assertThat(feed.size()).isEqualTo(8);
  }

  @Test
  void concurrentWritersKeepEveryBucketSorted() throws Exception {
    Feed<BoardRecord> feed = board();
    int writers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int from = w * 100;
        results.add(
            pool.submit(
                () -> {
                  List<Long> mine = new ArrayList<>();
                  for (int i = 0; i < 20; i++) {
                    mine.add(feed.add(Samples.board(from + i)));
                    mine.addAll(feed.addAll(Samples.boards(from + 50 + i * 2L, 2)));
                  }
                  return mine;
                }));
      }
      Set<Long> all = new HashSet<>();
      for (Future<List<Long>> result : results) {
        all.addAll(result.get());
      }
      assertThat(all).hasSize(writers * 60);
      List<Long> listed = scores(feed.page(1, Feed.MAX_PAGE_SIZE));
      assertThat(listed)
          .hasSize(writers * 60)
          .doesNotHaveDuplicates()
          .isSortedAccordingTo(Comparator.reverseOrder());
      assertThat(new HashSet<>(listed)).isEqualTo(all);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theAsyncViewDoesWhatTheBlockingOneDoes() throws Exception {
    Feed<BoardRecord> feed = board();
    AsyncFeed<BoardRecord> async = feed.async();
    assertThat(async.synchronous()).isSameAs(feed);
    long first = async.add(Samples.board(1)).get(30, TimeUnit.SECONDS);
    List<Long> more = async.addAll(Samples.boards(2, 3)).get(30, TimeUnit.SECONDS);
    assertThat(more).containsExactly(first + 1, first + 2, first + 3);
    async.putAll(Map.of(100L, Samples.board(100))).get(30, TimeUnit.SECONDS);
    assertThat(async.size().get(30, TimeUnit.SECONDS)).isEqualTo(5);
    assertThat(scores(async.page(1, 3).get(30, TimeUnit.SECONDS))).containsExactly(100L, 4L, 3L);
    assertThat(async.page(1, 3).get(30, TimeUnit.SECONDS)).isEqualTo(feed.page(1, 3));
    assertThat(async.remove(100).get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(async.remove(100).get(30, TimeUnit.SECONDS)).isFalse();
    assertThatThrownBy(() -> async.page(0, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> async.putAll(Map.of(0L, Samples.board(1))))
        .isInstanceOf(IllegalArgumentException.class);
    async.clear().get(30, TimeUnit.SECONDS);
    assertThat(feed.size()).isZero();
  }

  @Test
  void anAsyncPageLoadsTheDictionaryAnotherProcessLearned(RedisServer redis) throws Exception {
    Feed<BoardRecord> writer =
        stowage
            .feed("board", BoardRecord.class)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(100, 16 * 1024))
            .build();
    writer.addAll(Samples.boards(1, 300));
    try (Stowage reader = Stowage.builder().redis(redis.uri()).build()) {
      // An explicit compression: this feed does not adopt the recorded dictionary when it is built.
      Feed<BoardRecord> feed =
          reader
              .feed("board", BoardRecord.class)
              .encoding(Encoding.defaultFor(BoardRecord.class).compression(Compression.none()))
              .build();
      List<Feed.Entry<BoardRecord>> page = feed.async().page(1, 50).get(30, TimeUnit.SECONDS);
      assertThat(page).hasSize(50);
      assertThat(page.get(0)).isEqualTo(new Feed.Entry<>(300L, Samples.board(300)));
      assertThat(feed.decodeFailures()).isZero();
    }
  }

  @Test
  void largePagesAreDecodedOffTheSharedConnectionsIoThreadAndSmallOnesOnIt() throws Exception {
    Codec<BoardRecord> json = Codecs.json(BoardRecord.class);
    Set<String> decodedOn = ConcurrentHashMap.newKeySet();
    Codec<BoardRecord> watched =
        new Codec<>() {
          @Override
          public int id() {
            return json.id();
          }

          @Override
          public byte[] encode(BoardRecord value) {
            return json.encode(value);
          }

          @Override
          public BoardRecord decode(byte[] data, int offset, int length) {
            decodedOn.add(Thread.currentThread().getName());
            return json.decode(data, offset, length);
          }
        };
    Feed<BoardRecord> feed =
        stowage
            .feed("board", BoardRecord.class)
            .encoding(Encoding.of(watched).compression(Compression.none()))
            .build();
    Map<Long, BoardRecord> posts = new LinkedHashMap<>();
    for (long score = 1; score <= 60; score++) {
      posts.put(score, Samples.board(score));
    }
    feed.putAll(posts);

    assertThat(feed.async().page(1, 1).get(30, TimeUnit.SECONDS)).hasSize(1);
    assertThat(decodedOn)
        .as("a small page: where its reply completes, not handed over")
        .isNotEmpty()
        .noneMatch(thread -> thread.contains("eventExecutorLoop"));

    decodedOn.clear();
    List<Feed.Entry<BoardRecord>> page = feed.async().page(1, 50).get(30, TimeUnit.SECONDS);
    assertThat(page).hasSize(50);
    assertThat(page.get(49)).isEqualTo(new Feed.Entry<>(11L, Samples.board(11)));
    assertThat(decodedOn)
        .as("50 posts are over 4 KiB: decoded on Lettuce's computation threads only")
        .isNotEmpty()
        .allMatch(thread -> thread.contains("eventExecutorLoop"));
  }

  @Test
  void blockingPagesAreDecodedInTheCallingThreadWhateverTheirSize() {
    Set<String> decodedOn = ConcurrentHashMap.newKeySet();
    Feed<BoardRecord> feed =
        stowage
            .feed("board", BoardRecord.class)
            .encoding(Encoding.of(watchedJson(decodedOn)).compression(Compression.none()))
            .build();
    feed.addAll(Samples.boards(1, 60));
    String caller = Thread.currentThread().getName();

    assertThat(feed.page(1, 1)).containsExactly(new Feed.Entry<>(60L, Samples.board(60)));
    assertThat(decodedOn).as("a small page").containsExactly(caller);

    decodedOn.clear();
    List<Feed.Entry<BoardRecord>> page = feed.page(1, 50);
    assertThat(page).hasSize(50);
    assertThat(page.get(49)).isEqualTo(new Feed.Entry<>(11L, Samples.board(11)));
    assertThat(decodedOn)
        .as("50 posts, over 4 KiB: not handed to Lettuce's threads, the caller waits anyway")
        .containsExactly(caller);
  }

  @Test
  void blockingPagesFailAsTheirReadDoes() {
    Feed<BoardRecord> feed = board();
    feed.add(Samples.board(1));
    raw.sync().set(bytes("board"), bytes("not a sorted set"));
    assertThatThrownBy(() -> feed.page(1, 10))
        .isInstanceOf(StowageException.class)
        .hasMessageContaining("page 1 of 10 of feed 'board'");
  }

  /** JSON, noting the name of every thread that decodes with it. */
  private static Codec<BoardRecord> watchedJson(Set<String> decodedOn) {
    Codec<BoardRecord> json = Codecs.json(BoardRecord.class);
    return new Codec<>() {
      @Override
      public int id() {
        return json.id();
      }

      @Override
      public byte[] encode(BoardRecord value) {
        return json.encode(value);
      }

      @Override
      public BoardRecord decode(byte[] data, int offset, int length) {
        decodedOn.add(Thread.currentThread().getName());
        return json.decode(data, offset, length);
      }
    };
  }
}
