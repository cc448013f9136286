package dev.stowage.bench.nearcache;

import dev.stowage.Encoding;
import dev.stowage.bench.RedisTarget;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisURI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLocalCachedMap;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.LocalCachedMapOptions;
import org.redisson.api.options.LocalCachedMapOptions.EvictionPolicy;
import org.redisson.api.options.LocalCachedMapOptions.ReconnectionStrategy;
import org.redisson.api.options.LocalCachedMapOptions.SyncStrategy;

/**
 * Redisson's {@code RLocalCachedMap}: the items are fields of one Redis hash, kept in a local cache
 * of as many entries as Stowage's near cache, and invalidated by the messages that Redisson's own
 * writes publish on the map's topic ({@code SyncStrategy.INVALIDATE}), not by {@code CLIENT
 * TRACKING}. Its writer is therefore another Redisson client writing through a map of the same
 * name: a plain {@code HSET} would change the hash without telling any local cache.
 */
final class RedissonLocalCachedClient implements ReadClient {

  static final String NAME = "redisson-local-cached-map";

  private final KeySpace keys;
  private final int entries;
  private final SyncStrategy sync;
  private final RedissonClient redisson;
  private final RLocalCachedMap<String, Item> map;

  /** The bench's row: invalidated by Redisson's messages. */
  RedissonLocalCachedClient(
      RedisURI uri, KeySpace keys, Encoding.Serializer<Item> envelope, int entries) {
    this(uri, keys, envelope, entries, SyncStrategy.INVALIDATE);
  }

  /**
   * A map with another sync strategy: {@code NONE} keeps its copies whatever is written (for
   * tests).
   */
  RedissonLocalCachedClient(
      RedisURI uri,
      KeySpace keys,
      Encoding.Serializer<Item> envelope,
      int entries,
      SyncStrategy sync) {
    this.keys = keys;
    this.entries = entries;
    this.sync = sync;
    this.redisson = Redisson.create(new RedisTarget(uri).redisson());
    this.map = redisson.getLocalCachedMap(options(envelope, entries, sync));
  }

  /** The map's options, the same for the reader and the writer. */
  static LocalCachedMapOptions<String, Item> options(
      Encoding.Serializer<Item> envelope, int entries, SyncStrategy sync) {
    return LocalCachedMapOptions.<String, Item>name(KeySpace.HASH_KEY)
        .codec(new EnvelopeRedissonCodec(envelope))
        .cacheSize(entries)
        .evictionPolicy(EvictionPolicy.LRU)
        .syncStrategy(sync)
        .reconnectionStrategy(ReconnectionStrategy.CLEAR);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.PEER;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "Redisson RLocalCachedMap.get");
    params.put(
        "near_cache",
        "cacheSize " + entries + ", LRU, SyncStrategy." + sync + ", ReconnectionStrategy.CLEAR");
    params.put(
        "notes",
        "values in a Redis hash ("
            + KeySpace.HASH_KEY
            + "), loaded as a copy of their own;"
            + " written through a second Redisson client's RLocalCachedMap.fastPut, since Redisson invalidates by its own"
            + " pub/sub messages, not CLIENT TRACKING; near hits unknown (Redisson does not count its misses)");
    return params;
  }

  @Override
  public @Nullable Item get(int index) {
    return map.get(keys.suffix(index));
  }

  @Override
  public OptionalLong redisReads() {
    return OptionalLong.empty();
  }

  @Override
  public void close() {
    redisson.shutdown();
  }

  /**
   * The writer of Redisson's row: {@code fastPutAsync} on the same map from another Redisson
   * client.
   */
  static final class Writer implements ItemWriter {
    private final KeySpace keys;
    private final RedissonClient redisson;
    private final RLocalCachedMap<String, Item> map;

    Writer(RedisURI uri, KeySpace keys, Encoding.Serializer<Item> envelope, int entries) {
      this(uri, keys, envelope, entries, SyncStrategy.INVALIDATE);
    }

    Writer(
        RedisURI uri,
        KeySpace keys,
        Encoding.Serializer<Item> envelope,
        int entries,
        SyncStrategy sync) {
      this.keys = keys;
      this.redisson = Redisson.create(new RedisTarget(uri).redisson());
      this.map = redisson.getLocalCachedMap(options(envelope, entries, sync));
    }

    @Override
    public CompletionStage<?> write(int index, Item item) {
      return map.fastPutAsync(keys.suffix(index), item);
    }

    @Override
    public String describe() {
      return "RLocalCachedMap.fastPutAsync from a second Redisson client (HSET and an invalidation message)";
    }

    @Override
    public void close() {
      redisson.shutdown();
    }
  }
}
