package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@WithRedis
@Isolated("It captures the dev.stowage.cache logger, where other classes' caches log too.")
class BadValueIntegrationTests {
  private static final Logger CACHE_LOG = Logger.getLogger("dev.stowage.cache");
  private static Stowage stowage;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> raw;
  private final List<String> logged = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          logged.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

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
  void start(RedisServer redis) {
    redis.flushAll();
    CACHE_LOG.addHandler(capture);
  }

  @AfterEach
  void stop() {
    CACHE_LOG.removeHandler(capture);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private long loggedAbout(String key) {
    return logged.stream().filter(message -> message.contains(key + " cannot be decoded")).count();
  }

  /** Writes, under the cache's keys, a value of each kind that cannot be decoded. */
  private static void writeBadValues(RedisCache<String, Item> cache) {
    cache.put("good", Samples.item(0));
    byte[] good = raw.sync().get(bytes("bad:good"));
    raw.sync().set(bytes("bad:foreign"), bytes("{\"id\":1,\"name\":\"written by another app\"}"));
    raw.sync().set(bytes("bad:truncated"), Arrays.copyOf(good, good.length / 2));
    byte[] unknownCodec = good.clone();
    unknownCodec[2] = (byte) 200;
    raw.sync().set(bytes("bad:unknown-codec"), unknownCodec);
    raw.sync()
        .set(
            bytes("bad:missing-dictionary"),
            new byte[] {(byte) 0xC1, 0x10, 0x02, 0x03, (byte) 0x80, 0x01, 1, 2, 3});
    raw.sync().set(bytes("bad:empty"), new byte[0]);
    raw.sync().lpush(bytes("bad:a-list"), bytes("x"));
  }

  private static final List<String> BAD =
      List.of("foreign", "truncated", "unknown-codec", "missing-dictionary", "empty", "a-list");

  @Test
  void undecodableValuesAreMissesCountedAndLoggedOncePerKey() {
    RedisCache<String, Item> cache =
        stowage
            .cache("bad", Item.class)
            .encoding(Encoding.defaultFor(Item.class).compression(Compression.none()))
            .build();
    writeBadValues(cache);

    for (int round = 0; round < 3; round++) {
      for (String key : BAD) {
        assertThat(cache.get(key)).as(key).isNull();
      }
    }
    assertThat(cache.get("good")).isEqualTo(Samples.item(0));
    assertThat(cache.stats().decodeFailures()).isEqualTo(3L * BAD.size());
    assertThat(cache.stats().misses()).isEqualTo(3L * BAD.size());
    assertThat(cache.stats().hits()).isEqualTo(1);
    for (String key : BAD) {
      assertThat(loggedAbout("bad:" + key)).as("logged once: " + key).isEqualTo(1);
    }
    assertThat(cache.exists("foreign")).as("a bad value is left in place").isTrue();
  }

  @Test
  void bulkReadsSkipUndecodableValues() {
    RedisCache<String, Item> cache = stowage.cache("bad", Item.class).build();
    writeBadValues(cache);
    List<String> keys = new ArrayList<>(BAD);
    keys.add("good");

    assertThat(cache.getAll(keys)).containsOnlyKeys("good");
    assertThat(cache.stats().decodeFailures())
        .as("MGET reads a list as nil: not a failure")
        .isEqualTo(BAD.size() - 1);
    assertThat(cache.stats().misses()).isEqualTo(BAD.size());
  }

  @Test
  void aLoadReplacesAnUndecodableValue() {
    RedisCache<String, Item> cache = stowage.cache("bad", Item.class).build();
    writeBadValues(cache);

    assertThat(cache.getOrLoad("truncated", key -> Samples.item(7))).isEqualTo(Samples.item(7));
    assertThat(cache.get("truncated")).isEqualTo(Samples.item(7));
    assertThat(cache.stats().loads()).isEqualTo(1);
  }

  /**
   * Ten bytes: an envelope (msgpack, no compression) whose payload is an array holding a bin 32
   * that declares 2,147,483,632 bytes. msgpack-java allocated them before reading one, per read;
   * under this JVM's 1 GiB heap that was an OutOfMemoryError (and the JVM exits on one).
   */
  @Test
  void aTenByteValueDeclaringTwoGibibytesIsACountedMissForGetGetAllAndGetOrLoad() {
    RedisCache<String, Item> cache = stowage.cache("bad", Item.class).build();
    byte[] bomb = {
      (byte) 0xc1,
      0x10,
      0x02,
      0x00,
      (byte) 0x92,
      (byte) 0xc6,
      0x7f,
      (byte) 0xff,
      (byte) 0xff,
      (byte) 0xf0
    };
    raw.sync().set(bytes("bad:bomb"), bomb);
    cache.put("good", Samples.item(1));

    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          for (int round = 0; round < 20; round++) {
            assertThat(cache.get("bomb")).isNull();
            assertThat(cache.getAll(List.of("bomb", "good"))).containsOnlyKeys("good");
          }
          assertThat(cache.getOrLoad("bomb", key -> Samples.item(9))).isEqualTo(Samples.item(9));
        });

    // 20 gets, 20 getAlls, and getOrLoad's read and the second read its load makes before the
    // loader runs
    assertThat(cache.stats().decodeFailures()).isEqualTo(42);
    assertThat(cache.stats().misses()).isEqualTo(41);
    assertThat(cache.stats().loads()).isEqualTo(1);
    assertThat(loggedAbout("bad:bomb")).isEqualTo(1);
    assertThat(logged)
        .anyMatch(
            message ->
                message.contains("a bin 32 at byte 1 declares 2147483632 bytes, but 0 are left"));
    assertThat(cache.get("bomb")).as("the load replaced it").isEqualTo(Samples.item(9));
  }

  @Test
  void aLegacyCodecReadsValuesWithoutAnEnvelope() {
    RedisCache<String, Item> cache =
        stowage
            .cache("bad", Item.class)
            .encoding(Encoding.defaultFor(Item.class).legacy(Codecs.json(Item.class)))
            .build();
    raw.sync()
        .set(
            bytes("bad:old"),
            bytes("{\"id\":5,\"name\":\"n\",\"description\":\"d\",\"price\":10,\"stock\":2}"));

    assertThat(cache.get("old")).isEqualTo(new Item(5, "n", "d", 10, 2));
    assertThat(cache.stats().decodeFailures()).isZero();
  }
}
