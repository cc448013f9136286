package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.github.luben.zstd.Zstd;
import dev.stowage.Encoding;
import dev.stowage.EnvelopeException;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.envelope.DecompressionBudget;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Small values in Redis that cost a reader far more than their size: zstd frames of a couple of
 * kilobytes that declare tens of mebibytes, and the JDK's nested-set payload. Read by many threads
 * at once under this JVM's 1 GiB heap (which exits on OutOfMemoryError), each is a counted miss.
 */
@WithRedis
class DecodeBombIntegrationTests {
  private static final int MIB = 1 << 20;
  private static Stowage stowage;

  @BeforeAll
  static void connect(RedisServer redis) {
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
  }

  @BeforeEach
  void emptyRedis(RedisServer redis) {
    redis.flushAll();
  }

  /**
   * An envelope of the default codec (msgpack, 2) and zstd (2) around a frame of {@code size}
   * zeros.
   */
  private static byte[] zstdBomb(int size) {
    byte[] frame = Zstd.compress(new byte[size]);
    byte[] value = new byte[4 + frame.length];
    value[0] = (byte) 0xC1;
    value[1] = 0x10;
    value[2] = 2;
    value[3] = 2;
    System.arraycopy(frame, 0, value, 4, frame.length);
    return value;
  }

  @Test
  void manyThreadsReadingDecompressionBombsGetCountedMisses(RedisServer redis) throws Exception {
    RedisCache<String, Item> cache = stowage.cache("bombs", Item.class).build();
    byte[] oldLimit = zstdBomb(64 * MIB); // the 64 MiB each read used to allocate
    byte[] atLimit = zstdBomb(Encoding.DEFAULT_MAX_DECODED_SIZE);
    assertThat(oldLimit.length).isLessThan(8 * 1024);
    RawValues.set(redis, "bombs:old-limit", oldLimit);
    RawValues.set(redis, "bombs:at-limit", atLimit);
    cache.put("good", Samples.item(1));

    int threads = 32;
    int rounds = 5;
    ExecutorService readers = Executors.newFixedThreadPool(threads);
    try {
      assertTimeoutPreemptively(
          Duration.ofMinutes(2),
          () -> {
            List<Future<Integer>> reads = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
              reads.add(
                  readers.submit(
                      () -> {
                        int misses = 0;
                        for (int round = 0; round < rounds; round++) {
                          misses += cache.get("old-limit") == null ? 1 : 0;
                          misses += cache.get("at-limit") == null ? 1 : 0;
                          misses +=
                              cache.getAll(List.of("old-limit", "at-limit", "good")).size() == 1
                                  ? 2
                                  : 0;
                        }
                        return misses;
                      }));
            }
            for (Future<Integer> read : reads) {
              assertThat(read.get(120, TimeUnit.SECONDS)).isEqualTo(4 * rounds);
            }
          });
    } finally {
      readers.shutdownNow();
    }
    long bombReads = 4L * rounds * threads;
    assertThat(cache.stats().decodeFailures()).isEqualTo(bombReads);
    assertThat(cache.stats().misses()).isEqualTo(bombReads);
    assertThat(cache.stats().hits()).isEqualTo((long) rounds * threads);
    assertThat(DecompressionBudget.shared().inUse()).isZero();
  }

  @Test
  void theDecodedSizeLimitIsASettingOfCachesAndFeeds(RedisServer redis) {
    RedisCache<String, String> small =
        stowage
            .cache("limits", String.class)
            .encoding(Encoding.of(Codecs.string()).maxDecodedSize(1024))
            .build();
    RedisCache<String, String> large =
        stowage.cache("limits", String.class).encoding(Encoding.of(Codecs.string())).build();
    large.put("kilobytes", "x".repeat(4096));
    assertThat(large.get("kilobytes")).hasSize(4096);
    assertThat(small.get("kilobytes")).isNull();
    assertThat(small.stats().decodeFailures()).isEqualTo(1);
    assertThatThrownBy(() -> small.put("too-big", "y".repeat(2000)))
        .isInstanceOf(EnvelopeException.class)
        .hasMessageContaining("more than maxDecodedSize 1024");
    assertThatThrownBy(
            () ->
                stowage
                    .cache("limits", String.class)
                    .encoding(Encoding.defaultFor(String.class).maxDecodedSize(0))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxDecodedSize must be at least 1 byte, got 0");

    Feed<String> wide =
        stowage.feed("limited-feed", String.class).encoding(Encoding.of(Codecs.string())).build();
    Feed<String> narrow =
        stowage
            .feed("limited-feed", String.class)
            .encoding(Encoding.of(Codecs.string()).maxDecodedSize(1024))
            .build();
    wide.add("short");
    wide.add("z".repeat(4096));
    assertThat(wide.page(1, 10)).hasSize(2);
    assertThat(narrow.page(1, 10)).extracting(Feed.Entry::value).containsExactly("short");
    assertThat(narrow.decodeFailures()).isEqualTo(1);
    assertThatThrownBy(() -> narrow.add("w".repeat(2000))).isInstanceOf(EnvelopeException.class);
  }

  /**
   * The classic serialization DoS (see JdkWorkBoundsUnitTests): 2^60 hash calls in a few kilobytes.
   */
  @SuppressWarnings("NonApiType") // a HashSet is what the attack serializes
  private static HashSet<Object> nestedHashSets(int depth) {
    HashSet<Object> root = new HashSet<>();
    Set<Object> s1 = root;
    Set<Object> s2 = new HashSet<>();
    for (int i = 0; i < depth; i++) {
      Set<Object> t1 = new HashSet<>();
      Set<Object> t2 = new HashSet<>();
      t1.add("foo");
      s1.add(t1);
      s1.add(t2);
      s2.add(t1);
      s2.add(t2);
      s1 = t1;
      s2 = t2;
    }
    return root;
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void theClassicNestedHashSetsAreACountedMissReadQuickly(RedisServer redis) {
    RedisCache<String, HashSet> sets =
        stowage
            .cache("sets", HashSet.class)
            .encoding(Encoding.of(Codecs.jdk(HashSet.class)).compression(Compression.none()))
            .build();
    byte[] payload =
        EnvelopeCodec.builder(Codecs.jdk(HashSet.class)).build().encode(nestedHashSets(60));
    RawValues.set(redis, "sets:dos", payload);
    sets.put("ordinary", new HashSet<>(Set.of(Set.of("a"), List.of(1, 2), "text")));

    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> {
          assertThat(sets.get("dos")).isNull();
          assertThat(sets.get("ordinary"))
              .isEqualTo(new HashSet<>(Set.of(Set.of("a"), List.of(1, 2), "text")));
        });
    assertThat(sets.stats().decodeFailures()).isEqualTo(1);
    assertThat(sets.stats().hits()).isEqualTo(1);
  }
}
