package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Feed;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.feed.RedisFeed;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.format.StowageKeys;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Feeds at the top of their score range, up to {@link FeedLayout#MAX_SCORE} (2^53): buckets of 15
 * digits (from 10^14, scores from 6.4e15), which Lua writes with an exponent when it turns a number
 * into text ({@code tostring}, {@code ..}), and which must still be the keys and index members that
 * {@link StowageKeys} names, one bucket each, with every entry read back at its score.
 */
@WithRedis
class FeedLargeScoreIntegrationTests {
  private static final long TOP = FeedLayout.MAX_SCORE;
  private static final int SIZE = FeedLayout.BUCKET_SIZE;

  /**
   * A full bucket 2,560 scores below 2^53; its neighbours collapse into one name under {@code
   * %.14g}.
   */
  private static final long NEAR_TOP = TOP / SIZE - 40;

  /**
   * The first bucket of 15 digits (scores 6.4e15 to 6.4e15 + 63), which {@code %.14g} writes as
   * 1e+14.
   */
  private static final long E14 = 100_000_000_000_000L;

  /** The bucket that the adds fill: 2^53 - 192 to 2^53 - 129. */
  private static final long ADDED = (TOP - 192) / SIZE;

  private static Stowage stowage;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> raw;
  private long nextRecord;

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

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private BoardRecord next() {
    return Samples.board(nextRecord++);
  }

  /** Puts a new record at each score, in the feed and in the model. */
  private void putAll(
      Feed<BoardRecord> feed, NavigableMap<Long, BoardRecord> model, long... scores) {
    Map<Long, BoardRecord> values = new LinkedHashMap<>();
    for (long score : scores) {
      values.put(score, next());
    }
    feed.putAll(values);
    model.putAll(values);
  }

  private static long[] range(long from, long to) {
    long[] scores = new long[(int) (to - from + 1)];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = from + i;
    }
    return scores;
  }

  private static List<Feed.Entry<BoardRecord>> everything(Feed<BoardRecord> feed, int pageSize) {
    List<Feed.Entry<BoardRecord>> all = new ArrayList<>();
    for (int page = 1; ; page++) {
      List<Feed.Entry<BoardRecord>> entries = feed.page(page, pageSize);
      if (entries.isEmpty()) {
        return all;
      }
      all.addAll(entries);
    }
  }

  @ParameterizedTest(name = "sealFullBuckets({0})")
  @ValueSource(booleans = {true, false})
  void everyEntryNearTwoToThe53ReadsBackAtItsScoreUnderTheKeysStowageKeysNames(boolean seal) {
    String key = seal ? "large-sealed" : "large-open";
    Feed<BoardRecord> feed =
        stowage.feed(key, BoardRecord.class).chunkSize(50).sealFullBuckets(seal).build();
    NavigableMap<Long, BoardRecord> model = new TreeMap<>();
    SoftAssertions softly = new SoftAssertions();

    // Full buckets near 2^53 and at 10^14 (sealed, when sealing is on), with neighbours on both
    // sides.
    putAll(feed, model, range(NEAR_TOP * SIZE, NEAR_TOP * SIZE + SIZE - 1));
    putAll(
        feed,
        model,
        NEAR_TOP * SIZE - 3,
        NEAR_TOP * SIZE - 2,
        NEAR_TOP * SIZE - 1,
        (NEAR_TOP + 1) * SIZE,
        (NEAR_TOP + 1) * SIZE + 2,
        (NEAR_TOP + 1) * SIZE + 4);
    putAll(feed, model, range(E14 * SIZE, E14 * SIZE + SIZE - 1));
    putAll(
        feed,
        model,
        E14 * SIZE - 5,
        E14 * SIZE - 4,
        E14 * SIZE - 1,
        (E14 + 1) * SIZE,
        (E14 + 1) * SIZE + 1,
        (E14 + 1) * SIZE + 63);
    putAll(
        feed,
        model,
        999_999_999_999_998L,
        999_999_999_999_999L,
        1_000_000_000_000_000L,
        1_000_000_000_000_001L,
        1,
        2,
        64,
        TOP - 200);

    // The counter is at 2^53 - 200: adds take the next scores, and fill bucket ADDED.
    for (int i = 0; i < 72; i++) {
      BoardRecord value = next();
      long score = feed.add(value);
      assertThat(score).isEqualTo(TOP - 199 + i);
      model.put(score, value);
    }
    List<BoardRecord> batch = List.of(next(), next(), next(), next(), next());
    List<Long> batchScores = feed.addAll(batch);
    assertThat(batchScores).containsExactly(TOP - 127, TOP - 126, TOP - 125, TOP - 124, TOP - 123);
    for (int i = 0; i < batch.size(); i++) {
      model.put(batchScores.get(i), batch.get(i));
    }
    ((RedisFeed<BoardRecord>) feed.async()).sealsSettled().join();
    if (seal) {
      softly
          .assertThat(
              redis()
                  .exists(
                      bytes(StowageKeys.feedSealedBucket(key, NEAR_TOP)),
                      bytes(StowageKeys.feedSealedBucket(key, E14)),
                      bytes(StowageKeys.feedSealedBucket(key, ADDED))))
          .as("full buckets sealed")
          .isEqualTo(3);
    }

    // Writes into full (sealed) buckets, over an entry and between two, and into open ones.
    putAll(
        feed,
        model,
        NEAR_TOP * SIZE + 10,
        ADDED * SIZE + 20,
        (NEAR_TOP + 1) * SIZE + 3,
        (E14 + 1) * SIZE + 1,
        1_000_000_000_000_000L);
    softly.assertThat(feed.remove(E14 * SIZE + 5)).as("remove from the full bucket 10^14").isTrue();
    model.remove(E14 * SIZE + 5);
    softly.assertThat(feed.remove(E14 * SIZE - 1)).as("remove from bucket 10^14 - 1").isTrue();
    model.remove(E14 * SIZE - 1);
    softly
        .assertThat(feed.remove((NEAR_TOP + 1) * SIZE + 2))
        .as("remove from the bucket after it")
        .isTrue();
    model.remove((NEAR_TOP + 1) * SIZE + 2);
    softly.assertThat(feed.remove(E14 * SIZE + 5)).as("removed already").isFalse();
    softly.assertThat(feed.remove(TOP - 1)).as("never written").isFalse();
    putAll(feed, model, TOP);
    ((RedisFeed<BoardRecord>) feed.async()).sealsSettled().join();

    List<Feed.Entry<BoardRecord>> expected =
        model.descendingMap().entrySet().stream()
            .map(e -> new Feed.Entry<>(e.getKey(), e.getValue()))
            .toList();
    softly.assertThat(feed.size()).as("size()").isEqualTo(model.size());
    for (int pageSize : new int[] {1, 7, 64, 65, 1000}) {
      softly.assertThat(everything(feed, pageSize)).as("pages of %d", pageSize).isEqualTo(expected);
    }
    softly.assertThat(feed.decodeFailures()).as("decode failures").isZero();

    // Index members and keys, bucket by bucket, as StowageKeys and FeedLayout name them.
    Map<Long, Long> counts =
        model.keySet().stream()
            .collect(
                Collectors.groupingBy(FeedLayout::bucketOf, TreeMap::new, Collectors.counting()));
    // Opened by the writes into them and sealed again; bucket 10^14 lost an entry and stays open.
    Set<Long> sealed = seal ? Set.of(NEAR_TOP, ADDED) : Set.of();
    softly.assertThat(counts.get(E14)).as("bucket 10^14 after the remove").isEqualTo(SIZE - 1L);
    Set<String> members = new TreeSet<>();
    Set<String> keys = new TreeSet<>();
    Set<String> holds = new HashSet<>();
    keys.add(key);
    counts.forEach(
        (bucket, count) -> {
          boolean isSealed = count == SIZE && sealed.contains(bucket);
          members.add(
              isSealed ? FeedLayout.sealedIndexMember(bucket, SIZE) : Long.toString(bucket));
          keys.add(
              isSealed
                  ? StowageKeys.feedSealedBucket(key, bucket)
                  : StowageKeys.feedBucket(key, bucket));
          holds.add(StowageKeys.feedSealHold(key, bucket));
        });
    softly
        .assertThat(
            redis().zrange(bytes(key), 0, -1).stream().map(FeedLargeScoreIntegrationTests::text))
        .as("index members")
        .containsExactlyInAnyOrderElementsOf(members);
    Set<String> stored =
        redis().keys("*").stream()
            .map(FeedLargeScoreIntegrationTests::text)
            .collect(Collectors.toCollection(TreeSet::new));
    softly
        .assertThat(
            stored.stream()
                .filter(k -> k.equals(key) || k.startsWith(key + ":"))
                .filter(k -> !holds.contains(k))
                .toList())
        .as("the feed's keys")
        .containsExactlyInAnyOrderElementsOf(keys);
    softly
        .assertThat(
            stored.stream().filter(k -> !k.equals(key) && !k.startsWith(key + ":")).toList())
        .as("other keys")
        .allMatch(k -> k.equals("counter") || k.startsWith(StowageKeys.NAMESPACE));
    byte[] counter = redis().hget(bytes("counter"), bytes(key));
    softly
        .assertThat(counter == null ? null : text(counter))
        .as("counter")
        .isEqualTo(Long.toString(TOP));
    softly.assertAll();
  }

  @Test
  void anAddPastTwoToThe53IsRefusedAndWritesNothing() {
    Feed<BoardRecord> feed = stowage.feed("large-full", BoardRecord.class).build();
    BoardRecord below = next();
    BoardRecord top = next();
    feed.putAll(Map.of(TOP - 1, below, TOP, top));

    // Lua holds numbers as doubles: the counter's 2^53 + 1 is 2^53 there, a score already taken.
    assertThatThrownBy(() -> feed.add(next()))
        .isInstanceOf(StowageException.class)
        .hasMessageContaining("2^53");
    byte[] counter = redis().hget(bytes("counter"), bytes("large-full"));
    assertThat(counter == null ? null : text(counter)).as("counter").isEqualTo(Long.toString(TOP));
    assertThatThrownBy(() -> feed.async().reserveScores(1, 0).join()).hasMessageContaining("2^53");
    counter = redis().hget(bytes("counter"), bytes("large-full"));
    assertThat(counter == null ? null : text(counter)).as("counter").isEqualTo(Long.toString(TOP));
    assertThatThrownBy(() -> feed.addAll(List.of(next(), next())))
        .isInstanceOf(StowageException.class)
        .hasMessageContaining("2^53");
    assertThat(feed.size()).isEqualTo(2);
    assertThat(everything(feed, 10))
        .containsExactly(new Feed.Entry<>(TOP, top), new Feed.Entry<>(TOP - 1, below));
    assertThat(feed.decodeFailures()).isZero();
  }

  private static RedisCommands<byte[], byte[]> redis() {
    return raw.sync();
  }
}
