package dev.stowage.cache;

import static dev.stowage.cache.RedisCacheIntegrationTests.fragmentsWithABadOneAt24;
import static dev.stowage.cache.RedisCacheIntegrationTests.items;
import static dev.stowage.cache.RedisCacheIntegrationTests.pttl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CacheLayout;
import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the key-per-value layout alone does, one Redis string per entry: each entry's own jittered
 * TTL, and a blocking {@code putAll} that sends a chunk at a time. The packed layout's counterparts
 * are in {@code PackedCacheIntegrationTests}; what both do is in the {@link EveryLayout} suites.
 */
@WithRedis
class KeyPerValueLayoutIntegrationTests {
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

  @Test
  void everyWriteGetsAJitteredTtlWithinItsRange(RedisServer redis) {
    RedisCache<String, Item> cache =
        stowage
            .cache("ttl", Item.class)
            .layout(CacheLayout.keyPerValue())
            .ttl(Duration.ofSeconds(100))
            .ttlJitter(0.5)
            .chunkSize(100)
            .build();
    Map<String, Item> items = items(300);
    cache.putAll(items);
    cache.put("single", Samples.item(1));

    List<Long> ttls = new ArrayList<>();
    for (String key : items.keySet()) {
      ttls.add(pttl(redis, cache.redisKey(key)));
    }
    ttls.add(pttl(redis, "ttl:single"));
    assertThat(ttls).allSatisfy(millis -> assertThat(millis).isBetween(49_000L, 100_000L));
    long min = ttls.stream().mapToLong(Long::longValue).min().orElseThrow();
    long max = ttls.stream().mapToLong(Long::longValue).max().orElseThrow();
    assertThat(max - min).as("spread across half the TTL").isGreaterThan(40_000L);
    assertThat(ttls.stream().distinct().count()).isGreaterThan(250);
  }

  @Test
  void aBlockingPutAllThatCannotEncodeAValueStoredExactlyTheChunksBeforeItsChunk() {
    RedisCache<String, byte[]> cache =
        stowage
            .cache("fragments", byte[].class)
            .layout(CacheLayout.keyPerValue())
            .encoding(Encoding.of(Codecs.jsonBytes()))
            .chunkSize(10)
            .build();
    Map<String, byte[]> entries = fragmentsWithABadOneAt24();

    assertThatThrownBy(() -> cache.putAll(entries))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("the first 20 entries");

    Map<String, byte[]> stored = cache.getAll(entries.keySet());
    assertThat(stored.keySet())
        .as("the first two chunks, and nothing of the third or after")
        .containsExactlyElementsOf(IntStream.range(0, 20).mapToObj(i -> "f" + i).toList());
    assertThat(new String(stored.get("f19"), StandardCharsets.UTF_8)).isEqualTo("{\"n\":19}");
  }
}
