package dev.stowage.bench.nearcache;

import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Stowage's two rows: {@code cache.get(index)} on a cache with the default codec and compression,
 * without a near cache (every read goes to Redis) or with {@code NearCache.maximumSize(entries)}.
 */
final class StowageReadClient implements ReadClient {

  /** Every read goes to Redis: the baseline. */
  static final String PLAIN = "stowage";

  /** The same cache with a near cache. */
  static final String NEAR = "stowage-near";

  private final String name;
  private final int nearEntries;
  private final Stowage stowage;
  private final RedisCache<Integer, Item> cache;

  StowageReadClient(String name, String uri, KeySpace keys, int nearEntries) {
    this.name = name;
    this.nearEntries = nearEntries;
    this.stowage = Stowage.builder().redis(uri).commandTimeout(Duration.ofSeconds(60)).build();
    RedisCache.Builder<Integer, Item> builder =
        stowage
            .cache("items", Item.class)
            .<Integer>keys(keys::suffix)
            .keyPrefix(KeySpace.STRING_PREFIX);
    if (name.equals(NEAR)) {
      builder.nearCache(NearCache.maximumSize(nearEntries));
    } else if (!name.equals(PLAIN)) {
      throw new IllegalArgumentException("no Stowage row " + name);
    }
    this.cache = builder.build();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public RowRole role() {
    return RowRole.STOWAGE;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "Stowage RedisCache.get");
    if (name.equals(NEAR)) {
      params.put(
          "near_cache",
          "NearCache.maximumSize("
              + nearEntries
              + "): Caffeine, CLIENT TRACKING (RESP3) on a connection of its own");
      params.put("notes", "near misses from CacheStats.nearMisses");
    } else {
      params.put("near_cache", "none: every read is a GET on one shared connection");
    }
    return params;
  }

  @Override
  public @Nullable Item get(int index) {
    return cache.get(index);
  }

  @Override
  public OptionalLong redisReads() {
    return name.equals(NEAR) ? OptionalLong.of(cache.stats().nearMisses()) : OptionalLong.empty();
  }

  @Override
  public void close() {
    stowage.close();
  }
}
