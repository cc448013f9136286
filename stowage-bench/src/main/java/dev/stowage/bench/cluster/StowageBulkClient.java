package dev.stowage.bench.cluster;

import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Stowage's bulk calls, on one server ({@code Stowage.builder().redis}) or on a cluster ({@code
 * redisCluster}, which groups a bulk call's keys by slot and master): {@code cache.putAll(map)} and
 * {@code cache.getAll(ids)} on a cache with every default (compact MessagePack, the standard
 * compression then a learned dictionary, chunks of 1,000 keys) but {@code noExpiry()}, as the other
 * rows write, one cache per key prefix; single reads are {@code cache.get(id)}. The command timeout
 * is a minute so that a busy shared machine slows the row down rather than failing it.
 */
final class StowageBulkClient implements BulkClient {

  static final String NAME = "stowage";

  private final Stowage stowage;
  private final Topology topology;
  private final Map<String, RedisCache<Long, Item>> caches = new ConcurrentHashMap<>();

  StowageBulkClient(Topology topology) {
    this.topology = topology;
    Stowage.Builder builder =
        topology.isCluster()
            ? Stowage.builder().redisCluster(topology.seedUris().toArray(String[]::new))
            : Stowage.builder().redis(topology.seedUris().get(0));
    this.stowage = builder.commandTimeout(Duration.ofSeconds(60)).build();
  }

  @Override
  public String client() {
    return NAME;
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
        "Stowage RedisCache.putAll/getAll (defaults but noExpiry(), as the other rows write)"
            + (topology.isCluster() ? ", Stowage.builder().redisCluster" : ""));
    params.put(
        "serializer",
        "envelope, compact MessagePack, standard compression then a learned dictionary (defaults)");
    return params;
  }

  @Override
  public void putAll(List<Item> items, String keyPrefix) {
    Map<Long, Item> entries = new LinkedHashMap<>(items.size() * 2);
    for (Item item : items) {
      entries.put(item.id(), item);
    }
    cache(keyPrefix).putAll(entries);
  }

  @Override
  public List<@Nullable Item> getAll(List<Long> ids, String keyPrefix) {
    Map<Long, Item> found = cache(keyPrefix).getAll(ids);
    List<@Nullable Item> items = new ArrayList<>(ids.size());
    for (Long id : ids) {
      items.add(found.get(id));
    }
    return items;
  }

  @Override
  public @Nullable Item get(String keyPrefix, long id) {
    return cache(keyPrefix).get(id);
  }

  /**
   * Closes the connection, after removing the dictionary the cache learned and its record from a
   * borrowed server or cluster, so that it keeps no key of the bench's outside {@code
   * stowage-bench:}.
   */
  @Override
  public void close() {
    try {
      if (!topology.owned()) {
        forgetLearnedDictionary();
      }
    } finally {
      stowage.close();
    }
  }

  private void forgetLearnedDictionary() {
    // Where core records the dictionary a cache learned (RedisCache.Builder#learnDictionary); each
    // key is one command, so a cluster connection sends it to its master.
    String learned = Inspector.Keys.learnedByCache(NAME);
    if (topology.isCluster()) {
      RedisClusterClient client = RedisClusterClient.create(topology.seeds());
      try (var connection = client.connect()) {
        forget(learned, connection.sync());
      } finally {
        client.shutdown();
      }
    } else {
      RedisClient client = RedisClient.create(topology.seeds().get(0));
      try (var connection = client.connect()) {
        forget(learned, connection.sync());
      } finally {
        client.shutdown();
      }
    }
  }

  private static void forget(String learned, RedisClusterCommands<String, String> redis) {
    for (String hexId : redis.hvals(learned)) {
      redis.del(Inspector.Keys.dictionary(Long.parseLong(hexId, 16)));
    }
    redis.del(learned);
  }

  private RedisCache<Long, Item> cache(String keyPrefix) {
    RedisCache<Long, Item> cache = caches.get(keyPrefix);
    return cache != null
        ? cache
        : caches.computeIfAbsent(
            keyPrefix,
            prefix ->
                stowage
                    .cache(NAME, Item.class)
                    .<Long>keys(String::valueOf)
                    .keyPrefix(prefix)
                    .noExpiry()
                    .build());
  }
}
