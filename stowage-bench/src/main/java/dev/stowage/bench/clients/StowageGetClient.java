package dev.stowage.bench.clients;

import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Stowage: {@code cache.get(key)} on a cache with the default codec and compression (one shared
 * connection).
 */
final class StowageGetClient implements GetClient {

  static final String NAME = "stowage";

  private final Stowage stowage;
  private final RedisCache<Long, Item> cache;

  StowageGetClient(String uri, String keyPrefix) {
    this.stowage = Stowage.builder().redis(uri).commandTimeout(Duration.ofSeconds(60)).build();
    this.cache =
        stowage
            .cache("items", Item.class)
            .<Long>keys(ClientsBench::keySuffix)
            .keyPrefix(keyPrefix)
            .build();
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
    params.put("client", "Stowage RedisCache.get");
    params.put("pool", "none: one shared Lettuce connection");
    return params;
  }

  @Override
  public @Nullable Object get(long index) {
    return cache.get(index);
  }

  @Override
  public void close() {
    stowage.close();
  }
}
