package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.codec.Codecs;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.feed.RedisFeed;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Stowage#inspector()}: what a tool reads of the stored format, through the public API only,
 * against a real Redis.
 */
@WithRedis
class InspectorIntegrationTests {
  private Stowage stowage;
  private Inspector inspector;

  @BeforeEach
  void connect(RedisServer redis) {
    redis.flushAll();
    stowage = Stowage.builder().redis(redis.uri()).build();
    inspector = stowage.inspector();
  }

  @AfterEach
  void close() {
    stowage.close();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void describesAndDecodesACacheValueWithItsDictionary(RedisServer redis) {
    List<BoardRecord> samples = Samples.boards(1, 200);
    Encoding<BoardRecord> encoding =
        Encoding.of(Codecs.json(BoardRecord.class)).trainDictionary(samples, 4096);
    RedisCache<String, BoardRecord> cache =
        stowage.cache("boards", BoardRecord.class).keyPrefix("boards:").encoding(encoding).build();
    cache.put("b1", samples.get(3));
    byte[] stored = rawGet(redis, "boards:b1");

    Inspector.Header header = inspector.describe(stored).orElseThrow();
    assertThat(header.codecName()).isEqualTo("json");
    assertThat(header.compressionName()).startsWith("zstd-dict");
    assertThat(header.isCompressed()).isTrue();
    long dictionaryId = header.dictionaryId().orElseThrow();
    assertThat(header.headerSize() + header.payloadSize()).isEqualTo(stored.length);
    assertThat(header.describe()).contains(Inspector.hexId(dictionaryId));

    byte[] payload = inspector.payload(stored);
    assertThat(new String(payload, StandardCharsets.UTF_8)).contains(samples.get(3).title());
    assertThat(inspector.decode(stored, Encoding.of(Codecs.json(BoardRecord.class))))
        .isEqualTo(samples.get(3));

    assertThat(inspector.dictionaryIds()).containsExactly(dictionaryId);
    byte[] dictionary = inspector.dictionary(dictionaryId).orElseThrow();
    assertThat(Inspector.dictionaryId(dictionary)).isEqualTo(dictionaryId);
    assertThat(redis.command("EXISTS", Inspector.Keys.dictionary(dictionaryId))).isEqualTo(":1");

    assertThat(inspector.forgetDictionary(dictionaryId)).isTrue();
    assertThat(inspector.dictionaryIds()).isEmpty();
    assertThat(inspector.forgetDictionary(dictionaryId)).isFalse();
  }

  private static byte[] rawGet(RedisServer redis, String key) {
    try (RedisClient client = RedisClient.create(redis.uri());
        var connection = client.connect(ByteArrayCodec.INSTANCE)) {
      byte[] value = connection.sync().get(utf8(key));
      assertThat(value).as("the value under %s", key).isNotNull();
      return value;
    }
  }

  @Test
  void aValueWithoutAnEnvelopeHasNoHeader() {
    assertThat(Inspector.header(utf8("{\"plain\":1}"))).isEmpty();
    assertThat(inspector.describe(utf8("plain text"))).isEmpty();
  }

  @Test
  void walksAFeedsEntriesOpenAndSealed() {
    List<BoardRecord> records = Samples.boards(200);
    Feed<BoardRecord> feed =
        stowage.feed("posts", BoardRecord.class).chunkSize(50).sealFullBuckets(true).build();
    List<Long> scores = feed.addAll(records);
    ((RedisFeed<BoardRecord>) feed.async()).sealsSettled().join();

    List<Inspector.FeedEntry> entries = inspector.feedEntries("posts");
    assertThat(entries).extracting(Inspector.FeedEntry::score).isEqualTo(scores);
    assertThat(entries).anyMatch(Inspector.FeedEntry::sealed);
    assertThat(entries).anyMatch(entry -> !entry.sealed());
    Encoding<BoardRecord> reading = Encoding.defaultFor(BoardRecord.class);
    for (int i = 0; i < entries.size(); i++) {
      Inspector.FeedEntry entry = entries.get(i);
      assertThat(entry.bucket()).isEqualTo(entry.score() / 64);
      assertThat(Inspector.header(entry.value())).isPresent();
      assertThat(inspector.decode(entry.value(), reading)).isEqualTo(records.get(i));
    }
    assertThat(inspector.feedEntries("no-such-feed")).isEmpty();
  }

  @Test
  void listsAndForgetsSchemasAndLearnedRecords(RedisServer redis) {
    Encoding<BoardRecord> compact = Encoding.of(Codecs.msgpackCompact(BoardRecord.class));
    Encoding.Serializer<BoardRecord> serializer = compact.serializer(stowage);
    byte[] value = serializer.encode(Samples.board(1));
    int fingerprint = Inspector.header(value).orElseThrow().schemaVersion().orElseThrow();
    assertThat(
            Inspector.schemaFingerprint(((Codec.Evolving<BoardRecord>) compact.codec()).schema()))
        .isEqualTo(fingerprint);
    Awaitility.await().until(() -> inspector.schema(fingerprint).isPresent());
    assertThat(redis.command("EXISTS", Inspector.Keys.schema(fingerprint))).isEqualTo(":1");

    assertThat(inspector.forgetSchema(fingerprint)).isTrue();
    assertThat(redis.command("EXISTS", Inspector.Keys.schema(fingerprint))).isEqualTo(":0");

    redis.command("HSET", Inspector.Keys.learnedByCache("users"), "json", "0000abcd");
    assertThat(inspector.forgetLearnedByCache("users")).containsExactly(0xabcdL);
    assertThat(redis.command("EXISTS", Inspector.Keys.learnedByCache("users"))).isEqualTo(":0");
    assertThat(inspector.forgetLearnedByFeed("posts")).isEmpty();
  }

  @Test
  void keysStartWithTheNamespaceOrTheFeedsKey() {
    assertThat(Inspector.Keys.dictionary(0x3a5f09c1L)).isEqualTo("stowage:dict:3a5f09c1");
    assertThat(Inspector.Keys.learnedByCache("users")).startsWith(Inspector.Keys.NAMESPACE);
    assertThat(Inspector.Keys.feedBucket("posts", 3)).isEqualTo("posts:b:3");
    assertThat(Inspector.Keys.feedSealedBucket("posts", 3)).isEqualTo("posts:s:3");
    assertThat(Inspector.Keys.packedBucket("users:", 7))
        .isEqualTo(CacheLayout.bucketKey("users:", 7));
  }
}
