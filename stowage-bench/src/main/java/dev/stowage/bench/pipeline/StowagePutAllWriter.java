package dev.stowage.bench.pipeline;

import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Stowage's bulk write: {@code cache.putAll(map)} on a cache with every default (compact
 * MessagePack, the standard compression then a learned dictionary, the default chunk size), one
 * cache per key prefix; with the default TTL (each key its own jittered expiry), or without one, as
 * the seed and the other rows write. The command timeout is raised to a minute so that a busy
 * shared machine slows the row down rather than failing it.
 */
final class StowagePutAllWriter implements BulkWriter {

  static final String NAME = "stowage-putAll";
  static final String NO_EXPIRY_NAME = "stowage-putAll-noExpiry";

  private final Stowage stowage;
  private final String uri;
  private final boolean expire;
  private final Map<String, RedisCache<Long, Item>> caches = new HashMap<>();

  StowagePutAllWriter(String uri, boolean expire) {
    this.expire = expire;
    this.uri = uri;
    this.stowage = Stowage.builder().redis(uri).commandTimeout(Duration.ofSeconds(60)).build();
  }

  @Override
  public String name() {
    return expire ? NAME : NO_EXPIRY_NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.STOWAGE;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put(
        "client",
        expire
            ? "Stowage RedisCache.putAll (defaults: TTL 1 h with jitter)"
            : "Stowage RedisCache.putAll (defaults but noExpiry(), as the other rows write)");
    params.put(
        "serializer",
        "envelope, compact MessagePack, standard compression then a learned dictionary (defaults)");
    return params;
  }

  @Override
  public void write(List<Item> items, String keyPrefix) {
    Map<Long, Item> entries = new LinkedHashMap<>(items.size() * 2);
    for (Item item : items) {
      entries.put(item.id(), item);
    }
    cache(keyPrefix).putAll(entries);
  }

  @Override
  public @Nullable Item read(String key) {
    int split = key.lastIndexOf(':') + 1;
    return cache(key.substring(0, split)).get(Long.parseLong(key.substring(split)));
  }

  /**
   * Closes the connection, after removing the dictionary the cache learned and its record, so that
   * a borrowed Redis keeps no key of the bench's outside {@code stowage-bench:}.
   */
  @Override
  public void close() {
    try {
      forgetLearnedDictionary();
    } finally {
      stowage.close();
    }
  }

  private void forgetLearnedDictionary() {
    // Where core records the dictionary a cache learned (RedisCache.Builder#learnDictionary).
    String learned = Inspector.Keys.learnedByCache(name());
    RedisClient client = RedisClient.create(uri);
    try (var connection = client.connect()) {
      for (String hexId : connection.sync().hvals(learned)) {
        connection.sync().del(Inspector.Keys.dictionary(Long.parseLong(hexId, 16)));
      }
      connection.sync().del(learned);
    } finally {
      client.shutdown();
    }
  }

  private RedisCache<Long, Item> cache(String keyPrefix) {
    return caches.computeIfAbsent(
        keyPrefix,
        prefix ->
            expire
                ? stowage
                    .cache(name(), Item.class)
                    .<Long>keys(String::valueOf)
                    .keyPrefix(prefix)
                    .build()
                : stowage
                    .cache(name(), Item.class)
                    .<Long>keys(String::valueOf)
                    .keyPrefix(prefix)
                    .noExpiry()
                    .build());
  }
}
