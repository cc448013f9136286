package dev.stowage.bench.pipeline;

import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stowage's bulk write: {@code cache.putAll(map)} on a cache with every default (compact MessagePack,
 * zstd, the default TTL and chunk size), one cache per key prefix. The command timeout is raised to a
 * minute so that a busy shared machine slows the row down rather than failing it.
 */
final class StowagePutAllWriter implements BulkWriter {

  static final String NAME = "stowage-putAll";

  private final Stowage stowage;
  private final Map<String, RedisCache<Long, Item>> caches = new HashMap<>();

  StowagePutAllWriter(String uri) {
    this.stowage = Stowage.builder().redis(uri).commandTimeout(java.time.Duration.ofSeconds(60)).build();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.STOWAGE;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "Stowage RedisCache.putAll (defaults)");
    params.put("serializer", "envelope, compact MessagePack, zstd (Stowage's defaults)");
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
  public Item read(String key) {
    int split = key.lastIndexOf(':') + 1;
    return cache(key.substring(0, split)).get(Long.parseLong(key.substring(split)));
  }

  @Override
  public void close() {
    stowage.close();
  }

  private RedisCache<Long, Item> cache(String keyPrefix) {
    return caches.computeIfAbsent(keyPrefix, prefix ->
        stowage.cache(NAME, Item.class).<Long>keys(String::valueOf).keyPrefix(prefix).build());
  }
}
