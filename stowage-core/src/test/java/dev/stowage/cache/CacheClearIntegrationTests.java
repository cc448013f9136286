package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheLayout;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;

/** {@link RedisCache#clear()}: SCAN under the prefix, UNLINK per page, nothing else touched. */
@WithRedis
@EveryLayout
class CacheClearIntegrationTests {
  @Parameter CacheLayout layout;

  private Stowage stowage;

  @BeforeEach
  void connect(RedisServer redis) {
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterEach
  void close() {
    stowage.close();
  }

  @Test
  void removesTheKeysUnderThePrefixAndNoOthers(RedisServer redis) {
    RedisCache<String, String> books = stowage.cache("books", String.class).layout(layout).build();
    RedisCache<String, String> bookshelves =
        stowage.cache("bookshelves", String.class).layout(layout).build();
    books.put("1", "one");
    books.put("2", "two");
    bookshelves.put("1", "shelf");
    redis.command("SET", "books", "no colon, not under books:");

    assertThat(books.clear()).isEqualTo(2);

    assertThat(books.exists("1")).isFalse();
    assertThat(books.exists("2")).isFalse();
    assertThat(bookshelves.get("1")).isEqualTo("shelf");
    assertThat(redis.reply("GET", "books")).isEqualTo("no colon, not under books:");
    assertThat(books.clear()).isZero();
  }

  @Test
  void escapesTheGlobCharactersOfThePrefix(RedisServer redis) {
    RedisCache<String, String> odd =
        stowage.cache("odd", String.class).layout(layout).keyPrefix("a*b?c[d]\\e:").build();
    odd.put("k", "v");
    // Both match the prefix taken as a pattern (a*b?c[d]\e:*) rather than as text.
    redis.command("SET", "aXXbYcde:k", "other");
    redis.command("SET", "a*b?cde:k", "other");

    assertThat(odd.clear()).isEqualTo(1);

    assertThat(odd.exists("k")).isFalse();
    assertThat(redis.reply("EXISTS", "aXXbYcde:k")).isEqualTo(1L);
    assertThat(redis.reply("EXISTS", "a*b?cde:k")).isEqualTo(1L);
  }

  @Test
  void removesThousandsOfEntries() {
    RedisCache<String, String> many =
        stowage.cache("many", String.class).layout(layout).chunkSize(500).build();
    RedisCache<String, String> kept = stowage.cache("kept", String.class).layout(layout).build();
    Map<String, String> entries = new LinkedHashMap<>();
    for (int i = 0; i < 12_345; i++) {
      entries.put("k" + i, "v" + i);
    }
    many.putAll(entries);
    kept.putAll(Map.of("k1", "v1", "k2", "v2"));

    // The keys the entries take: one each on the key-per-value layout, their buckets when packed.
    long keys = entries.keySet().stream().map(many::redisKey).distinct().count();
    assertThat(keys).isEqualTo(layout.isPacked() ? layout.buckets() : 12_345);

    assertThat(many.async().clear().join()).isEqualTo(keys);

    assertThat(many.getAll(entries.keySet())).isEmpty();
    assertThat(kept.getAll(List.of("k1", "k2"))).hasSize(2);
  }

  @Test
  void emptiesTheNearCache() {
    RedisCache<String, String> near =
        stowage.cache("near", String.class).layout(layout).nearCache(NearCache.defaults()).build();
    near.put("k", "v");
    // Tracking starts in the background; then a read keeps the value and the next is answered by
    // it.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(near.get("k")).isEqualTo("v");
              assertThat(near.stats().nearHits()).isPositive();
            });

    near.clear();

    assertThat(near.get("k")).isNull();
  }
}
