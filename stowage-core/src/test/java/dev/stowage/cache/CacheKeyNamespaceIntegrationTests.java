package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheLayout;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A cache's key namespace: a prefix that is empty, blank or inside Stowage's own {@code stowage:}
 * keys is refused, {@code clear()} removes only the keys its layout could have written, and one
 * Stowage refuses a cache or feed whose keys overlap another's.
 */
@WithRedis
class CacheKeyNamespaceIntegrationTests {
  private static Stowage stowage;

  /** Another process, with caches and a feed of its own in the same database. */
  private static Stowage other;

  /** A value whose codec saves a schema under stowage:schema:*. */
  record Item(String name, int n) {}

  @BeforeAll
  static void connect(RedisServer redis) {
    stowage = Stowage.builder().redis(redis.uri()).build();
    other = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
    other.close();
  }

  @Test
  void anEmptyOrBlankPrefixIsRefusedOnEitherLayout() {
    for (String prefix : List.of("", " ", "\t\n")) {
      assertThatThrownBy(() -> stowage.cache("everything", String.class).keyPrefix(prefix).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("cache 'everything': keyPrefix must not be empty or blank");
      assertThatThrownBy(
              () ->
                  stowage
                      .cache("everything", String.class)
                      .keyPrefix(prefix)
                      .layout(CacheLayout.packedBuckets(4))
                      .build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("cache 'everything': keyPrefix must not be empty or blank");
    }
  }

  @Test
  void aPrefixInsideOrAroundStowagesOwnKeysIsRefused() {
    for (String prefix :
        List.of(
            "stowage:",
            "stowage:dict:",
            "stowage:learned:cache:x:",
            "stowage:lock:",
            "stowage:d",
            "stow",
            "s")) {
      assertThatThrownBy(() -> stowage.cache("own", String.class).keyPrefix(prefix).build())
          .as(prefix)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "cache 'own' (keys under '"
                  + prefix
                  + "') overlaps Stowage's own keys"
                  + " (stowage:schema:*, stowage:dict:*, stowage:dict-info:*, stowage:learned:cache:*,"
                  + " stowage:learned:feed:*, stowage:lock:*");
    }
    assertThatThrownBy(() -> stowage.feed("own", String.class).key("stowage:schema:feed").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("feed 'own' (key 'stowage:schema:feed'")
        .hasMessageContaining("overlaps Stowage's own keys (stowage:schema:*");
    // Another name under stowage: is the application's (the board keeps a cache under
    // stowage:board:).
    stowage.cache("mark", String.class).keyPrefix("stowage:mark:").build().put("complete", "1");
  }

  /** Every key of the database and its type. */
  private static Map<String, String> keysAndTypes(RedisServer redis) {
    Map<String, String> all = new TreeMap<>();
    @SuppressWarnings("unchecked")
    List<String> keys = (List<String>) redis.reply("KEYS", "*");
    for (String key : keys) {
      all.put(key, (String) redis.reply("TYPE", key));
    }
    return all;
  }

  @Test
  void clearRemovesOnlyTheKeysItsLayoutCouldHaveWritten(RedisServer redis) {
    redis.flushAll();
    // Another process's cache, packed cache and feed, Stowage's own keys, and an unrelated key.
    RedisCache<String, Item> shop = other.cache("shop", Item.class).build();
    RedisCache<String, Item> shelves =
        other.cache("shelves", Item.class).layout(CacheLayout.packedBuckets(4)).build();
    Feed<Item> board = other.feed("board", Item.class).build();
    RedisCache<String, Item> itemsX =
        other.cache("items-x", Item.class).keyPrefix("items:x:").build();
    for (int i = 0; i < 20; i++) {
      shop.put("k" + i, new Item("shop", i));
      shelves.put("k" + i, new Item("shelf", i));
      itemsX.put("k" + i, new Item("x", i));
    }
    List<Item> posts = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      posts.add(new Item("post", i));
    }
    board.addAll(posts);
    redis.command("SET", "app:config", "unrelated");
    // Keys under the prefixes below that those caches' layouts never write.
    redis.command("SET", "ab:1", "matches a* as a pattern");
    redis.command("HSET", "a*:h", "f", "a hash under the prefix a*:");
    redis.command("ZADD", "a*:z", "1", "a sorted set under the prefix a*:");
    redis.command("SET", "items:{0}", "a string where a packed cache keeps bucket 0");
    redis.command("HSET", "items:{4}", "f", "past the packed cache's four buckets");
    redis.command("HSET", "items:{01}", "f", "not a bucket number as the layout writes it");
    redis.command("HSET", "items:{1}x", "f", "more after the bucket");
    Map<String, String> before = keysAndTypes(redis);
    assertThat(before)
        .containsKeys("app:config", "board", "counter", "shop:k0")
        .as("Stowage's own keys")
        .containsKey(
            before.keySet().stream()
                .filter(k -> k.startsWith("stowage:schema:"))
                .findFirst()
                .orElseThrow());
    assertThat(before.values()).contains("zset", "list", "hash", "string");

    // A key-per-value cache whose prefix holds glob characters: its strings go, and nothing else.
    RedisCache<String, Item> globbed =
        stowage.cache("globbed", Item.class).keyPrefix("a*:").build();
    Map<String, Item> own = new LinkedHashMap<>();
    for (int i = 0; i < 5; i++) {
      own.put("k" + i, new Item("glob", i));
    }
    globbed.putAll(own);
    Map<String, String> withGlobbed = keysAndTypes(redis);
    assertThat(globbed.clear()).isEqualTo(5);
    Map<String, String> expected = new TreeMap<>(withGlobbed);
    own.keySet().forEach(k -> expected.remove("a*:" + k));
    assertThat(keysAndTypes(redis)).isEqualTo(expected);

    // A packed cache whose prefix is a prefix of another cache's: its buckets go, and nothing else.
    RedisCache<String, Item> items =
        stowage.cache("items", Item.class).layout(CacheLayout.packedBuckets(4)).build();
    Map<String, Item> packed = new HashMap<>();
    for (int i = 0; i < 40; i++) {
      // Bucket 0's key holds someone else's string, so no key of ours goes there.
      if (CacheLayout.packedBuckets(4).bucketOf("p" + i) != 0) {
        packed.put("p" + i, new Item("packed", i));
      }
    }
    items.putAll(packed);
    Map<String, String> withItems = keysAndTypes(redis);
    List<String> buckets = new ArrayList<>();
    for (String key : packed.keySet()) {
      if (!buckets.contains(items.redisKey(key))) {
        buckets.add(items.redisKey(key));
      }
    }
    assertThat(items.clear()).isEqualTo(buckets.size());
    Map<String, String> expectedAfterItems = new TreeMap<>(withItems);
    buckets.forEach(expectedAfterItems::remove);
    assertThat(keysAndTypes(redis)).isEqualTo(expectedAfterItems);

    // What the other process wrote is all there, as before.
    Map<String, String> after = keysAndTypes(redis);
    assertThat(after).isEqualTo(before);
    assertThat(shop.get("k3")).isEqualTo(new Item("shop", 3));
    assertThat(shelves.get("k3")).isEqualTo(new Item("shelf", 3));
    assertThat(itemsX.get("k3")).isEqualTo(new Item("x", 3));
    assertThat(board.size()).isEqualTo(150);
  }

  @Test
  void aKeyPerValueClearLeavesAnotherTypeUnderItsPrefix(RedisServer redis) {
    RedisCache<String, String> notes = stowage.cache("notes", String.class).build();
    notes.put("1", "one");
    redis.command("HSET", "notes:h", "f", "v");
    redis.command("RPUSH", "notes:l", "v");

    assertThat(notes.clear()).isEqualTo(1);

    assertThat(redis.reply("TYPE", "notes:h")).isEqualTo("hash");
    assertThat(redis.reply("TYPE", "notes:l")).isEqualTo("list");
  }

  @Test
  @SuppressWarnings(
      "ReachabilityFenceUsage") // the fence keeps the caches reachable until the checks above ran;
  // a throw before it fails the test anyway
  void aCacheOrFeedNoLongerReachableGivesItsNamespaceBack(RedisServer redis) {
    try (Stowage one = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, String> kept = one.cache("kept", String.class).build();
      one.cache("dropped", String.class).build().put("k", "v");
      one.feed("dropped-feed", String.class).build().add("v");
      assertThatThrownBy(() -> one.cache("under", String.class).keyPrefix("dropped:x:").build())
          .isInstanceOf(IllegalArgumentException.class);

      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(
              () -> {
                System.gc();
                one.cache("under", String.class).keyPrefix("dropped:x:").build();
                one.cache("feeds", String.class).keyPrefix("dropped-feed:").build();
              });
      assertThatThrownBy(() -> one.cache("kept-too", String.class).keyPrefix("kept:x:").build())
          .isInstanceOf(IllegalArgumentException.class);
      Reference.reachabilityFence(kept);
    }
  }

  @Test
  @SuppressWarnings(
      "ReachabilityFenceUsage") // the fence keeps the caches reachable until the checks above ran;
  // a throw before it fails the test anyway
  void oneStowageRefusesACacheOrFeedWhoseKeysOverlapAnothers(RedisServer redis) {
    try (Stowage one = Stowage.builder().redis(redis.uri()).build()) {
      // Held to the end: a cache or feed no longer reachable gives its namespace back.
      RedisCache<String, String> items = one.cache("items", String.class).build();
      assertThatThrownBy(() -> one.cache("sub", String.class).keyPrefix("items:x:").build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "cache 'sub' (keys under 'items:x:') overlaps cache 'items' (keys under 'items:')"
                  + " of the same Stowage");
      RedisCache<String, String> deep =
          one.cache("deep", String.class).keyPrefix("deep:x:").build();
      assertThatThrownBy(() -> one.cache("shallow", String.class).keyPrefix("deep:").build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "cache 'shallow' (keys under 'deep:') overlaps cache 'deep' (keys under 'deep:x:')");
      assertThatThrownBy(() -> one.cache("twin", String.class).keyPrefix("items:").build())
          .as("another cache with the same prefix")
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("overlaps cache 'items'");
      assertThatThrownBy(
              () -> one.cache("items", String.class).layout(CacheLayout.packedBuckets(4)).build())
          .as("the same prefix with another layout")
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("overlaps cache 'items'");

      Feed<String> board = one.feed("board", String.class).build();
      assertThatThrownBy(() -> one.cache("boards", String.class).keyPrefix("board:").build())
          .as("a prefix that covers the feed's buckets")
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "cache 'boards' (keys under 'board:') overlaps feed 'board' (key 'board'");
      assertThatThrownBy(() -> one.feed("news", String.class).key("items:news").build())
          .as("a feed whose key is under a cache's prefix")
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("feed 'news' (key 'items:news'")
          .hasMessageContaining("overlaps cache 'items' (keys under 'items:')");
      assertThatThrownBy(() -> one.feed("copy", String.class).key("board:b:7").build())
          .as("a feed whose key is one of another feed's buckets")
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("overlaps feed 'board'");

      // The same cache or feed built again shares its keys, as before; other feeds share the
      // counter hash.
      one.cache("items", String.class).build();
      one.feed("board", String.class).build();
      one.feed("posts", String.class).build();
      // A refusal keeps nothing: what does not overlap still builds.
      one.cache("sub", String.class).keyPrefix("other:").build();
      one.cache("shallow", String.class).keyPrefix("shallow:").build();
      Reference.reachabilityFence(items);
      Reference.reachabilityFence(deep);
      Reference.reachabilityFence(board);
    }
  }
}
