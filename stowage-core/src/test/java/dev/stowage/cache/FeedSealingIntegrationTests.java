package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.feed.RedisFeed;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sealed feed buckets ({@link FeedLayout}): written, read, opened again by writes, and kept whole.
 */
@WithRedis
class FeedSealingIntegrationTests {
  private static Stowage stowage;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> raw;
  private static final List<BoardRecord> RECORDS = Samples.boards(300);

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

  private static RedisCommands<byte[], byte[]> redis() {
    return raw.sync();
  }

  private static Feed<BoardRecord> feed(String name, boolean seal) {
    return stowage.feed(name, BoardRecord.class).chunkSize(50).sealFullBuckets(seal).build();
  }

  private static List<String> index(String key) {
    return redis().zrange(bytes(key), 0, -1).stream()
        .map(m -> new String(m, StandardCharsets.US_ASCII))
        .toList();
  }

  /** Every entry, newest first, read page by page. */
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

  /** Pages 1 to {@code count}, one after the other, empty ones included. */
  private static List<Feed.Entry<BoardRecord>> pages(Feed<BoardRecord> feed, int size, int count) {
    List<Feed.Entry<BoardRecord>> all = new ArrayList<>();
    for (int page = 1; page <= count; page++) {
      all.addAll(feed.page(page, size));
    }
    return all;
  }

  private static List<Feed.Entry<BoardRecord>> expectedNewestFirst(int n) {
    List<Feed.Entry<BoardRecord>> expected = new ArrayList<>();
    for (int score = n; score >= 1; score--) {
      expected.add(new Feed.Entry<>(score, RECORDS.get(score - 1)));
    }
    return expected;
  }

  private static void awaitSeals(Feed<BoardRecord> feed) {
    ((RedisFeed<BoardRecord>) feed.async()).sealsSettled().join();
  }

  @Test
  void fullBucketsAreSealedIntoOneStringAndEveryPageReadsAsBefore() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 200));

    assertThat(index("board")).containsExactly("0:63", "1:64", "2:64", "3");
    for (int bucket = 0; bucket < 3; bucket++) {
      assertThat(redis().exists(bytes(FeedLayout.bucketKey("board", bucket)))).isZero();
      byte[] sealed = redis().get(bytes(FeedLayout.sealedKey("board", bucket)));
      assertThat(Envelope.readHeader(sealed).compressionId()).isNotEqualTo(CompressionIds.NONE);
    }
    assertThat(redis().llen(bytes(FeedLayout.bucketKey("board", 3)))).isEqualTo(200 - 191);
    assertThat(feed.size()).isEqualTo(200);
    for (int pageSize : new int[] {1, 7, 9, 10, 64, 65, 200, 500}) {
      assertThat(everything(feed, pageSize))
          .as("pages of %d", pageSize)
          .isEqualTo(expectedNewestFirst(200));
    }
    assertThat(feed.page(3, 7))
        .extracting(Feed.Entry::score)
        .containsExactly(186L, 185L, 184L, 183L, 182L, 181L, 180L);
    assertThat(feed.decodeFailures()).isZero();
  }

  @Test
  void sealedBucketsTakeFarLessMemoryThanTheSameEntriesOneByOne() {
    feed("sealed", true).addAll(RECORDS.subList(0, 255));
    feed("open", false).addAll(RECORDS.subList(0, 255));

    long sealed = 0;
    long open = 0;
    for (int bucket = 0; bucket < 4; bucket++) {
      sealed += redis().strlen(bytes(FeedLayout.sealedKey("sealed", bucket)));
      for (byte[] member : redis().lrange(bytes(FeedLayout.bucketKey("open", bucket)), 0, -1)) {
        open += member.length;
      }
    }
    assertThat(index("sealed")).containsExactly("0:63", "1:64", "2:64", "3:64");
    assertThat(sealed).as("sealed bytes against %d open", open).isLessThan(open * 6 / 10);
  }

  @Test
  void aFeedWithADictionarySealsWithItAndStillReads() {
    Feed<BoardRecord> feed =
        stowage
            .feed("board", BoardRecord.class)
            .chunkSize(50)
            .encoding(
                Encoding.defaultFor(BoardRecord.class)
                    .trainDictionary(RECORDS.subList(0, 200), 16 * 1024))
            .build();
    feed.addAll(RECORDS.subList(0, 140));

    Envelope.Header header =
        Envelope.readHeader(redis().get(bytes(FeedLayout.sealedKey("board", 1))));
    assertThat(CompressionIds.hasDictionary(header.compressionId())).as(header.describe()).isTrue();
    assertThat(everything(feed, 30)).isEqualTo(expectedNewestFirst(140));
  }

  @Test
  void aSealedBucketKeptDecompressedIsNeverUsedForAnotherStoredValue() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));
    Feed<BoardRecord> other = feed("other", true);
    other.addAll(RECORDS.subList(140, 280));
    assertThat(feed.page(3, 20))
        .extracting(Feed.Entry::value)
        .containsExactlyElementsOf(
            expectedNewestFirst(140).subList(40, 60).stream().map(Feed.Entry::value).toList());

    // Behind the feed's back, bucket 1 gets the other feed's bucket 1: its scores are the same.
    redis()
        .set(
            bytes(FeedLayout.sealedKey("board", 1)),
            redis().get(bytes(FeedLayout.sealedKey("other", 1))));

    List<BoardRecord> others = new ArrayList<>();
    for (int score = 100; score > 80; score--) {
      others.add(RECORDS.get(140 + score - 1));
    }
    assertThat(feed.page(3, 20)).extracting(Feed.Entry::value).containsExactlyElementsOf(others);
  }

  @Test
  void addSealsTheBucketItFillsAfterItsReply() {
    Feed<BoardRecord> feed = feed("board", true);
    for (BoardRecord record : RECORDS.subList(0, 130)) {
      feed.add(record);
    }
    awaitSeals(feed);

    assertThat(index("board")).containsExactly("0:63", "1:64", "2");
    assertThat(everything(feed, 20)).isEqualTo(expectedNewestFirst(130));
  }

  @Test
  void aWriteIntoASealedBucketOpensItWritesAndSealsItAgain() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));
    BoardRecord replacement = RECORDS.get(299);

    feed.putAll(Map.of(70L, replacement, 5L, replacement));

    assertThat(index("board"))
        .as("open until the burst of writes is over")
        .containsExactly("0", "1", "2");
    assertThat(feed.page(3, 30)).extracting(Feed.Entry::value).contains(replacement);
    awaitSeals(feed);
    assertThat(index("board")).containsExactly("0:63", "1:64", "2");
    List<Feed.Entry<BoardRecord>> expected = new ArrayList<>(expectedNewestFirst(140));
    expected.set(140 - 70, new Feed.Entry<>(70, replacement));
    expected.set(140 - 5, new Feed.Entry<>(5, replacement));
    assertThat(everything(feed, 30)).isEqualTo(expected);
  }

  @Test
  void removingFromASealedBucketOpensItAndLeavesTheRestInPlace() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));

    assertThat(feed.remove(70)).isTrue();
    assertThat(feed.remove(70)).isFalse();

    assertThat(index("board")).containsExactly("0:63", "1", "2");
    assertThat(redis().exists(bytes(FeedLayout.sealedKey("board", 1)))).isZero();
    assertThat(feed.size()).isEqualTo(139);
    List<Feed.Entry<BoardRecord>> expected = new ArrayList<>(expectedNewestFirst(140));
    expected.remove(140 - 70);
    assertThat(everything(feed, 25)).isEqualTo(expected);
  }

  @Test
  void aBucketThatARemoveOpenedIsNotSealedAgainAtOnceByTheWriteThatRefillsIt() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));

    assertThat(feed.remove(70)).isTrue();
    feed.putAll(Map.of(70L, RECORDS.get(299)));
    assertThat(index("board"))
        .as("held open for the writes that follow")
        .containsExactly("0:63", "1", "2");
    assertThat(feed.remove(71)).isTrue();
    feed.putAll(Map.of(71L, RECORDS.get(298)));

    awaitSeals(feed);
    assertThat(index("board")).containsExactly("0:63", "1:64", "2");
    List<Feed.Entry<BoardRecord>> expected = new ArrayList<>(expectedNewestFirst(140));
    expected.set(140 - 70, new Feed.Entry<>(70, RECORDS.get(299)));
    expected.set(140 - 71, new Feed.Entry<>(71, RECORDS.get(298)));
    assertThat(everything(feed, 30)).isEqualTo(expected);
  }

  @Test
  void clearRemovesSealedBucketsToo() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));

    feed.clear();

    assertThat(redis().keys("board*")).isEmpty();
    assertThat(feed.size()).isZero();
    assertThat(feed.page(1, 10)).isEmpty();
  }

  @Test
  void aFeedWrittenWithoutSealingReadsAndTakesWritesWithIt() {
    feed("board", false).addAll(RECORDS.subList(0, 150));
    assertThat(index("board")).containsExactly("0", "1", "2");

    Feed<BoardRecord> sealing = feed("board", true);
    assertThat(everything(sealing, 16)).isEqualTo(expectedNewestFirst(150));
    sealing.addAll(RECORDS.subList(150, 200));

    assertThat(index("board")).containsExactly("0", "1", "2:64", "3");
    assertThat(everything(sealing, 33)).isEqualTo(expectedNewestFirst(200));
  }

  @Test
  void aCorruptSealedBucketCostsOnlyItsOwnEntriesAndIsNeverOverwritten() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));
    byte[] sealedKey = bytes(FeedLayout.sealedKey("board", 1));
    byte[] sealed = redis().get(sealedKey);
    byte[] corrupt = Arrays.copyOf(sealed, sealed.length / 2);
    redis().set(sealedKey, corrupt);

    assertThat(pages(feed, 20, 8))
        .extracting(Feed.Entry::score)
        .isEqualTo(
            expectedNewestFirst(140).stream()
                .map(Feed.Entry::score)
                .filter(s -> s < 64 || s > 127)
                .toList());
    assertThat(feed.decodeFailures()).isEqualTo(64);
    assertThatThrownBy(() -> feed.putAll(Map.of(100L, RECORDS.get(0))))
        .isInstanceOf(StowageException.class)
        .hasMessageContaining("opening sealed bucket 1");
    assertThat(redis().get(sealedKey)).as("left as it was").isEqualTo(corrupt);
    assertThat(feed.size()).isEqualTo(140);
  }

  @Test
  void aSealedBucketWhoseStringIsMissingIsCountedOnceAndLeavesTheIndex() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));
    redis().del(bytes(FeedLayout.sealedKey("board", 1)));
    List<Long> left =
        expectedNewestFirst(140).stream()
            .map(Feed.Entry::score)
            .filter(s -> s < 64 || s > 127)
            .toList();

    assertThat(feed.page(1, 20)).extracting(Feed.Entry::score).isEqualTo(left.subList(0, 20));
    assertThat(feed.decodeFailures()).as("its 64 entries, counted once").isEqualTo(64);
    assertThat(index("board")).containsExactly("0:63", "2");
    assertThat(pages(feed, 20, 8)).extracting(Feed.Entry::score).isEqualTo(left);
    assertThat(feed.size()).isEqualTo(76);
    assertThat(feed.decodeFailures()).isEqualTo(64);
  }

  @Test
  void aWriteIntoASealedBucketWhoseStringIsGoneRepairsTheIndexOnceAndSizeAgreesWithPages() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));
    redis().del(bytes(FeedLayout.sealedKey("board", 1)));
    BoardRecord replacement = RECORDS.get(299);

    feed.putAll(Map.of(100L, replacement));

    List<Feed.Entry<BoardRecord>> expected = new ArrayList<>(expectedNewestFirst(140));
    expected.removeIf(entry -> entry.score() >= 64 && entry.score() < 128);
    expected.add(13, new Feed.Entry<>(100, replacement));
    for (int read = 0; read < 3; read++) {
      assertThat(feed.size()).as("read %d", read).isEqualTo(expected.size());
      assertThat(everything(feed, 20)).as("read %d", read).isEqualTo(expected);
      assertThat(pages(feed, 7, 12)).as("read %d", read).isEqualTo(expected);
    }
    assertThat(feed.decodeFailures()).as("the lost entries, counted once").isEqualTo(64);
    assertThat(index("board")).containsExactly("0:63", "1", "2");
  }

  @Test
  void removingFromASealedBucketWhoseStringIsGoneRepairsTheIndex() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 140));
    redis().del(bytes(FeedLayout.sealedKey("board", 1)));

    assertThat(feed.remove(70)).isFalse();

    assertThat(index("board")).containsExactly("0:63", "2");
    assertThat(feed.size()).isEqualTo(76);
    assertThat(feed.decodeFailures()).isEqualTo(64);
  }

  /**
   * A sealed value of 64 members of {@code memberBytes} zeros each: small stored, large
   * decompressed.
   */
  private static byte[] sealedZeros(int memberBytes) {
    List<byte[]> members = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      members.add(new byte[memberBytes]);
    }
    return EnvelopeCodec.builder(Codecs.string())
        .compression(Compression.zstd(3))
        .build()
        .wrap(FeedLayout.sealedPayload(members));
  }

  @Test
  void sealedValuesLargerThanAWriterSealsAreRefusedAndKeptBucketsAreBoundedInBytes() {
    Feed<BoardRecord> feed = feed("board", true);
    // Buckets 1 to 8 declare 8 MB each (under the feed's maxDecodedSize of 8 MiB), in a few hundred
    // bytes each; buckets 9 to 16 some 256 KB, what a writer may seal at most.
    for (int bucket = 1; bucket <= 16; bucket++) {
      byte[] value = sealedZeros(bucket <= 8 ? 124_000 : 4_000);
      assertThat(value.length).isLessThan(2_000);
      redis().set(bytes(FeedLayout.sealedKey("board", bucket)), value);
      redis().zadd(bytes("board"), bucket, bytes(FeedLayout.sealedIndexMember(bucket, 64)));
    }
    feed.async().raiseCounter(17 * 64 - 1).join();
    long newest = feed.add(RECORDS.get(0));

    for (int read = 0; read < 2; read++) {
      assertThat(feed.page(1, 2_000)).containsExactly(new Feed.Entry<>(newest, RECORDS.get(0)));
      assertThat(((RedisFeed<BoardRecord>) feed.async()).keptBucketBytes())
          .as("bytes kept decompressed")
          .isLessThanOrEqualTo(1 << 20);
    }
    assertThat(feed.decodeFailures()).isEqualTo(2 * 16 * 64);
  }

  @Test
  void concurrentRemovesPutsAndAddsIntoSealedBucketsNeverFailAndLoseNothing() throws Exception {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 192));
    int writers = 6;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
    Map<Long, BoardRecord> expected = new ConcurrentHashMap<>();
    for (long score = 1; score <= 192; score++) {
      expected.put(score, RECORDS.get((int) score - 1));
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> writes = new ArrayList<>();
      for (int writer = 0; writer < writers; writer++) {
        int w = writer;
        writes.add(
            pool.submit(
                () -> {
                  // Writer w alone touches the scores 64 + w, 64 + w + 6, ... of buckets 1 and 2.
                  for (int round = 0; round < 2_000 && System.nanoTime() < deadline; round++) {
                    long score = 64L + w + (long) writers * (round % 21);
                    BoardRecord value = RECORDS.get(192 + (w * 17 + round) % 108);
                    assertThat(feed.remove(score)).as("score %d", score).isTrue();
                    expected.remove(score);
                    feed.putAll(Map.of(score, value));
                    expected.put(score, value);
                    if (round % 4 == 0) {
                      BoardRecord added = RECORDS.get(w);
                      expected.put(feed.add(added), added);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> write : writes) {
        write.get();
      }
    } finally {
      pool.shutdownNow();
    }
    awaitSeals(feed);

    List<Feed.Entry<BoardRecord>> all = everything(feed, 50);
    List<Feed.Entry<BoardRecord>> wanted =
        expected.entrySet().stream()
            .sorted(Map.Entry.<Long, BoardRecord>comparingByKey().reversed())
            .map(entry -> new Feed.Entry<>(entry.getKey(), entry.getValue()))
            .toList();
    assertThat(all).isEqualTo(wanted);
    assertThat(feed.size()).isEqualTo(wanted.size());
    assertThat(feed.decodeFailures()).isZero();
  }

  @Test
  void concurrentWritersNeverLoseAnEntryWhileBucketsAreSealedAndOpened() throws Exception {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 192));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> writes = new ArrayList<>();
      for (int writer = 0; writer < 4; writer++) {
        int w = writer;
        writes.add(
            pool.submit(
                () -> {
                  for (int round = 0; round < 15; round++) {
                    Map<Long, BoardRecord> values = new LinkedHashMap<>();
                    for (long score = 64L + w; score < 192; score += 4 + round % 3) {
                      values.put(score, RECORDS.get(200 + w * 20 + round));
                    }
                    feed.putAll(values);
                    feed.add(RECORDS.get(w));
                  }
                }));
      }
      for (Future<?> write : writes) {
        write.get();
      }
    } finally {
      pool.shutdownNow();
    }
    awaitSeals(feed);

    List<Feed.Entry<BoardRecord>> all = everything(feed, 50);
    assertThat(all).hasSize(192 + 60);
    assertThat(all)
        .extracting(Feed.Entry::score)
        .isSortedAccordingTo((a, b) -> Long.compare(b, a))
        .doesNotHaveDuplicates();
    assertThat(feed.size()).isEqualTo(252);
    Map<Long, BoardRecord> byScore =
        all.stream().collect(Collectors.toMap(Feed.Entry::score, Feed.Entry::value));
    for (long score = 64; score < 192; score++) {
      assertThat(byScore.get(score)).as("score %d", score).isIn(allowed(score));
    }
    assertThat(feed.decodeFailures()).isZero();
  }

  /**
   * What concurrent writers may have left at a score: its first value, or one a writer put there.
   */
  private static Object[] allowed(long score) {
    List<BoardRecord> values = new ArrayList<>();
    values.add(RECORDS.get((int) score - 1));
    for (int w = 0; w < 4; w++) {
      for (int round = 0; round < 15; round++) {
        values.add(RECORDS.get(200 + w * 20 + round));
      }
    }
    return values.toArray();
  }

  @Test
  void asyncPagesDecodeSealedBucketsOffTheConnectionsThread() {
    Feed<BoardRecord> feed = feed("board", true);
    feed.addAll(RECORDS.subList(0, 200));
    List<CompletableFuture<List<Feed.Entry<BoardRecord>>>> pages = new ArrayList<>();
    for (int page = 1; page <= 10; page++) {
      pages.add(feed.async().page(page, 20));
    }
    List<Feed.Entry<BoardRecord>> all = new ArrayList<>();
    pages.forEach(page -> all.addAll(page.join()));
    assertThat(all).isEqualTo(expectedNewestFirst(200));
  }
}
