package dev.stowage.bench.nearcache;

import dev.stowage.Encoding;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.support.caching.CacheAccessor;
import io.lettuce.core.support.caching.CacheFrontend;
import io.lettuce.core.support.caching.ClientSideCaching;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Lettuce's own server-assisted client-side caching, as its documentation shows it: one RESP3
 * connection with {@code CLIENT TRACKING} on, {@code ClientSideCaching.enable} over a {@code
 * ConcurrentHashMap}, and {@code frontend.get(key)}. Values are decoded from the same envelopes
 * with Stowage's codec when they arrive, so the map holds decoded items.
 */
final class LettuceCachingClient implements ReadClient {

  static final String NAME = "lettuce-client-side-caching";

  private final KeySpace keys;
  private final RedisClient client;
  private final CacheFrontend<String, Item> frontend;
  private final LongAdder misses = new LongAdder();

  LettuceCachingClient(RedisURI uri, KeySpace keys, Encoding.Serializer<Item> envelope) {
    this.keys = keys;
    this.client = RedisClient.create(uri);
    client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3).build());
    try {
      StatefulRedisConnection<String, Item> connection =
          client.connect(new EnvelopeRedisCodec(envelope));
      CacheAccessor<String, Item> map = CacheAccessor.forMap(new ConcurrentHashMap<>());
      this.frontend =
          ClientSideCaching.enable(
              new CountingAccessor(map), connection, TrackingArgs.Builder.enabled());
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
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
    params.put(
        "client",
        "Lettuce ClientSideCaching.enable(CacheAccessor.forMap(ConcurrentHashMap), RESP3 connection, CLIENT TRACKING ON)");
    params.put("near_cache", "unbounded ConcurrentHashMap of decoded items");
    params.put(
        "notes",
        "a miss is a GET on the one tracking connection, decoded with Stowage's envelope codec, then put in the map;"
            + " the map's misses are counted, its hits are not");
    return params;
  }

  @Override
  public Item get(int index) {
    return frontend.get(keys.key(index));
  }

  @Override
  public OptionalLong redisReads() {
    return OptionalLong.of(misses.sum());
  }

  @Override
  public void close() {
    try {
      frontend.close(); // closes the connection
    } finally {
      client.shutdown();
    }
  }

  /** Lettuce's map accessor, counting the lookups that found no value (each followed by a GET). */
  private final class CountingAccessor implements CacheAccessor<String, Item> {
    private final CacheAccessor<String, Item> delegate;

    CountingAccessor(CacheAccessor<String, Item> delegate) {
      this.delegate = delegate;
    }

    @Override
    public Item get(String key) {
      Item value = delegate.get(key);
      if (value == null) {
        misses.increment();
      }
      return value;
    }

    @Override
    public void put(String key, Item value) {
      delegate.put(key, value);
    }

    @Override
    public void evict(String key) {
      delegate.evict(key);
    }
  }
}
