package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.StowageInternals;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The default compression learns a zstd dictionary from the values a cache or feed writes, records
 * it for every process, and switches to it; values written before stay readable.
 */
@WithRedis
class DictionaryLearningIntegrationTests {
  private static final int SAMPLES = 100;
  private static final int SIZE = 16 * 1024;
  private static final String CODEC = Codecs.defaultFor(BoardRecord.class).name();

  private Stowage stowage;

  @BeforeEach
  void connect(RedisServer redis) {
    redis.flushAll();
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterEach
  void close() {
    stowage.close();
  }

  private static Map<String, BoardRecord> boards(int from, int n) {
    Map<String, BoardRecord> boards = new LinkedHashMap<>();
    for (BoardRecord board : Samples.boards(from, n)) {
      boards.put(board.id(), board);
    }
    return boards;
  }

  @Test
  void aCacheLearnsFromItsFirstValuesThenWritesWithTheRecordedDictionary(RedisServer redis)
      throws Exception {
    RedisCache<String, BoardRecord> cache =
        stowage
            .cache("boards", BoardRecord.class)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
            .build();
    Map<String, BoardRecord> first = boards(0, SAMPLES);
    first.forEach(cache::put);
    for (String key : first.keySet()) {
      // The standard compression leaves a record of a few hundred bytes as it is.
      assertThat(header(redis, "boards:" + key).compressionId()).isEqualTo(CompressionIds.NONE);
    }

    // The last sample trains in the background; the writes after it switch once it is recorded.
    String hexId = awaitLearned(redis, "stowage:learned:cache:boards");
    long id = Long.parseLong(hexId, 16);
    assertThat(redis.command("EXISTS", DictionaryStore.key(id))).isEqualTo(":1");
    Map<String, BoardRecord> later = boards(1000, 50);
    awaitDictionaryWrites(cache, later, redis, id);

    Map<String, BoardRecord> all = new LinkedHashMap<>(first);
    all.putAll(later);
    assertThat(cache.getAll(all.keySet())).isEqualTo(all);
    try (Stowage another = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, BoardRecord> reader =
          another
              .cache("boards", BoardRecord.class)
              .encoding(Encoding.defaultFor(BoardRecord.class).compression(Compression.none()))
              .build();
      assertThat(reader.getAll(all.keySet())).isEqualTo(all);
      assertThat(reader.stats().decodeFailures()).isZero();
    }
  }

  @Test
  void aProcessThatStartsLaterAdoptsTheRecordedDictionaryAtOnce(RedisServer redis) {
    RedisCache<String, BoardRecord> learner =
        stowage
            .cache("boards", BoardRecord.class)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
            .build();
    learner.putAll(boards(0, SAMPLES + 10));
    String hexId = field(redis, "stowage:learned:cache:boards");
    assertThat(hexId).as("a bulk write trains in its own thread").isNotNull();

    try (Stowage later = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, BoardRecord> cache = later.cache("boards", BoardRecord.class).build();
      BoardRecord board = Samples.board(5000);
      cache.put(board.id(), board);
      Envelope.Header header = header(redis, "boards:" + board.id());
      assertThat(header.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
      assertThat(header.dictionaryId()).isEqualTo(Long.parseLong(hexId, 16));
    }
  }

  @Test
  void theRecordIsWrittenAgainAfterRedisRestartedEmpty(RedisServer redis) {
    RedisCache<String, BoardRecord> learner =
        stowage
            .cache("boards", BoardRecord.class)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
            .build();
    learner.putAll(boards(0, SAMPLES + 10));
    String hexId = field(redis, "stowage:learned:cache:boards");
    assertThat(hexId).isNotNull();

    redis.restart();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> hexId.equals(field(redis, "stowage:learned:cache:boards")));
    assertThat(redis.command("EXISTS", DictionaryStore.key(Long.parseLong(hexId, 16))))
        .isEqualTo(":1");
    try (Stowage later = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, BoardRecord> cache = later.cache("boards", BoardRecord.class).build();
      BoardRecord board = Samples.board(5000);
      cache.put(board.id(), board);
      assertThat(header(redis, "boards:" + board.id()).dictionaryId())
          .as("adopted, not learned again")
          .isEqualTo(Long.parseLong(hexId, 16));
    }
  }

  @Test
  void aProcessStillLearningAdoptsTheDictionaryAnotherRecordedFirst(RedisServer redis) {
    RedisCache<String, BoardRecord> first =
        stowage
            .cache("boards", BoardRecord.class)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
            .build();
    try (Stowage second = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, BoardRecord> slower =
          second
              .cache("boards", BoardRecord.class)
              .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
              .build();
      first.putAll(boards(0, SAMPLES));
      String recorded = field(redis, "stowage:learned:cache:boards");
      // Other samples: had it trained, the second would have made another dictionary.
      slower.putAll(boards(20_000, SAMPLES));
      BoardRecord board = Samples.board(30_000);
      slower.put(board.id(), board);
      assertThat(header(redis, "boards:" + board.id()).dictionaryId())
          .isEqualTo(Long.parseLong(recorded, 16));
      assertThat(StowageInternals.dictionaries(stowage).list()).hasSize(1);
    }
  }

  @Test
  void eachCodecLearnsItsOwnDictionaryForTheSameCache(RedisServer redis) {
    stowage
        .cache("boards", BoardRecord.class)
        .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
        .build()
        .putAll(boards(0, SAMPLES));
    stowage
        .cache("boards", BoardRecord.class)
        .encoding(Encoding.of(Codecs.json(BoardRecord.class)).learnDictionary(SAMPLES, SIZE))
        .build()
        .putAll(boards(0, SAMPLES));
    assertThat(RawValues.hget(redis, "stowage:learned:cache:boards", CODEC)).isNotNull();
    assertThat(RawValues.hget(redis, "stowage:learned:cache:boards", "json"))
        .isNotNull()
        .isNotEqualTo(RawValues.hget(redis, "stowage:learned:cache:boards", CODEC));
    assertThat(StowageInternals.dictionaries(stowage).list()).hasSize(2);
  }

  @Test
  void aFeedsBulkAddTrainsBeforeItEncodesTheRestOfItsValues(RedisServer redis) {
    // Unsealed, so that every entry is stored as it was encoded.
    Feed<BoardRecord> feed =
        stowage
            .feed("board", BoardRecord.class)
            .sealFullBuckets(false)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
            .build();
    List<BoardRecord> boards = Samples.boards(500);
    List<Long> scores = feed.addAll(boards);

    String hexId = field(redis, "stowage:learned:feed:board");
    assertThat(hexId).isNotNull();
    List<byte[]> stored = RawValues.members(redis, "board");
    assertThat(stored).hasSize(500);
    for (byte[] member : stored) {
      Envelope.Header header = Envelope.readHeader(FeedLayout.envelope(member));
      int index = scores.indexOf(FeedLayout.score(member));
      if (index < SAMPLES) {
        assertThat(header.compressionId()).as("entry %d", index).isEqualTo(CompressionIds.NONE);
      } else {
        assertThat(header.compressionId())
            .as("entry %d", index)
            .isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
        assertThat(ZstdHex.of(header.dictionaryId())).isEqualTo(hexId);
      }
    }
    assertThat(feed.page(1, 500))
        .extracting(Feed.Entry::value)
        .containsExactlyElementsOf(reversed(boards));
  }

  @Test
  void anExplicitCompressionNeverLearns(RedisServer redis) {
    // The compression policy is one setting: the last one given wins.
    RedisCache<String, BoardRecord> cache =
        stowage
            .cache("boards", BoardRecord.class)
            .encoding(
                Encoding.defaultFor(BoardRecord.class)
                    .learnDictionary(SAMPLES, SIZE)
                    .compression(Compression.zstd()))
            .build();
    Map<String, BoardRecord> boards = boards(0, 3 * SAMPLES);
    cache.putAll(boards);
    assertThat(redis.command("EXISTS", "stowage:learned:cache:boards")).isEqualTo(":0");
    assertThat(StowageInternals.dictionaries(stowage).list()).isEmpty();
    for (String key : boards.keySet()) {
      assertThat(header(redis, "boards:" + key).compressionId()).isEqualTo(CompressionIds.ZSTD);
    }
  }

  @Test
  void valuesTooAlikeToTrainOnStayPlainZstdAndReadable(RedisServer redis) {
    RedisCache<String, BoardRecord> cache =
        stowage
            .cache("same", BoardRecord.class)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
            .build();
    BoardRecord board = Samples.board(1);
    Map<String, BoardRecord> copies = new LinkedHashMap<>();
    for (int i = 0; i < 3 * SAMPLES; i++) {
      copies.put("k" + i, board);
    }
    cache.putAll(copies);
    assertThat(cache.getAll(copies.keySet())).isEqualTo(copies);
    assertThat(cache.stats().decodeFailures()).isZero();
  }

  @Test
  void anAsyncReadLoadsAnUnknownDictionaryWithoutBlockingTheConnection(RedisServer redis)
      throws Exception {
    RedisCache<String, BoardRecord> writer =
        stowage
            .cache("boards", BoardRecord.class)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(SAMPLES, SIZE))
            .build();
    Map<String, BoardRecord> boards = boards(0, 3 * SAMPLES);
    writer.putAll(boards);
    String last = boards.keySet().stream().reduce((a, b) -> b).orElseThrow();
    assertThat(header(redis, "boards:" + last).compressionId())
        .isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);

    try (Stowage reader =
        Stowage.builder().redis(redis.uri()).commandTimeout(Duration.ofSeconds(5)).build()) {
      // No learning: this cache does not load the dictionary when it is built.
      RedisCache<String, BoardRecord> cache =
          reader
              .cache("boards", BoardRecord.class)
              .encoding(Encoding.defaultFor(BoardRecord.class).compression(Compression.none()))
              .build();
      assertThat(
              StowageInternals.dictionaries(reader)
                  .isLoaded(Long.parseLong(field(redis, "stowage:learned:cache:boards"), 16)))
          .isFalse();
      // Decoding runs on Lettuce's I/O thread here: the dictionary must be loaded before, not
      // there.
      assertThat(cache.async().get(last).get(30, TimeUnit.SECONDS)).isEqualTo(boards.get(last));
      assertThat(cache.async().getAll(boards.keySet()).get(30, TimeUnit.SECONDS)).isEqualTo(boards);
      assertThat(cache.stats().decodeFailures()).isZero();
    }
  }

  @Test
  void aValueNamingAMissingDictionaryIsACountedMissForAsyncReadsToo(RedisServer redis)
      throws Exception {
    RedisCache<String, BoardRecord> cache = stowage.cache("boards", BoardRecord.class).build();
    // An envelope naming dictionary 0x0badf00d, which Redis does not hold.
    byte[] value = HexFormat.of().parseHex("c1100203" + "8de0b75d" + "00");
    RawValues.set(redis, "boards:ghost", value);
    assertThat(cache.async().get("ghost").get(30, TimeUnit.SECONDS)).isNull();
    assertThat(cache.async().get("ghost").get(30, TimeUnit.SECONDS)).isNull();
    assertThat(cache.stats().decodeFailures()).isEqualTo(2);
  }

  @Test
  void oneEncodingServesACacheAndAFeedAndSavesItsDictionaryAtBuild(RedisServer redis) {
    Encoding<BoardRecord> trained =
        Encoding.defaultFor(BoardRecord.class).trainDictionary(Samples.boards(1, 500), 4096);
    RedisCache<String, BoardRecord> cache =
        stowage.cache("boards", BoardRecord.class).encoding(trained).build();
    Feed<BoardRecord> feed = stowage.feed("board", BoardRecord.class).encoding(trained).build();

    List<Long> saved = StowageInternals.dictionaries(stowage).list();
    assertThat(saved).hasSize(1);
    cache.put("1", Samples.board(1));
    feed.add(Samples.board(2));
    Envelope.Header cached = header(redis, "boards:1");
    assertThat(cached.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
    assertThat(cached.dictionaryId()).isEqualTo(saved.get(0));
    assertThat(cache.get("1")).isEqualTo(Samples.board(1));
    assertThat(feed.page(1, 10)).extracting(Feed.Entry::value).containsExactly(Samples.board(2));
    assertThat(redis.command("EXISTS", "stowage:learned:cache:boards")).isEqualTo(":0");

    // A dictionary inside a given compression is saved too, so that other processes read the
    // values.
    Encoding<BoardRecord> given =
        Encoding.defaultFor(BoardRecord.class)
            .compression(
                CompressionAccess.zstd(
                    ZstdDictionary.train(
                        Samples.boards(600, 300).stream()
                            .map(board -> Codecs.defaultFor(BoardRecord.class).encode(board))
                            .toList(),
                        2048)));
    stowage.cache("other", BoardRecord.class).encoding(given).build();
    assertThat(StowageInternals.dictionaries(stowage).list()).hasSize(2);
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> copy = new ArrayList<>(list);
    Collections.reverse(copy);
    return copy;
  }

  private static String awaitLearned(RedisServer redis, String key) {
    return await("a dictionary recorded in " + key)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> field(redis, key), Objects::nonNull);
  }

  /** Writes until a value comes out with dictionary {@code id} (the switch follows the record). */
  private static void awaitDictionaryWrites(
      RedisCache<String, BoardRecord> cache,
      Map<String, BoardRecord> boards,
      RedisServer redis,
      long id) {
    String first = "boards:" + boards.keySet().iterator().next();
    Envelope.Header header =
        await("values written with dictionary " + Long.toHexString(id))
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(20))
            .until(
                () -> {
                  boards.forEach(cache::put);
                  return header(redis, first);
                },
                written -> written.compressionId() == CompressionIds.ZSTD_DICT_MAGICLESS);
    assertThat(header.dictionaryId()).isEqualTo(id);
  }

  /** The field of the default codec in the learned-dictionary hash, or null. */
  private static String field(RedisServer redis, String key) {
    return RawValues.hget(redis, key, CODEC);
  }

  private static Envelope.Header header(RedisServer redis, String key) {
    return Envelope.readHeader(RawValues.get(redis, key));
  }

  /** Dictionary ids as the store names them. */
  private static final class ZstdHex {
    static String of(long id) {
      return ZstdDictionary.hexId(id);
    }
  }
}
