package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheStats;
import dev.stowage.CacheUnavailableException;
import dev.stowage.CodecException;
import dev.stowage.RedisCache;
import dev.stowage.StowageException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The blocking view of a {@link RedisCacheCore}: each call starts the asynchronous operation and
 * waits for it, at most the command timeout per round trip. Values are decoded here, in the
 * calling thread, and loaders run in the calling thread.
 */
final class BlockingRedisCache<K, V> implements RedisCache<K, V> {
  private final RedisCacheCore<K, V> core;
  private final RedisSession session;

  BlockingRedisCache(RedisCacheCore<K, V> core) {
    this.core = core;
    this.session = core.session();
  }

  @Override
  public String name() {
    return core.name();
  }

  /** Waits for a Redis operation, counting its failure in the cache's statistics. */
  private <T> T await(CompletableFuture<T> operation, int roundTrips, String what) {
    try {
      return session.await(operation, roundTrips, what);
    } catch (StowageException e) {
      throw core.countFailure(e);
    }
  }

  @Override
  public @Nullable V get(K key) {
    String keyText = core.keyText(key);
    V kept = core.nearValue(keyText);
    if (kept != null) {
      return kept;
    }
    long stamp = core.stamp(keyText);
    byte[] bytes = await(core.fetch(keyText), 1, "GET " + keyText);
    V value = core.decodeOrMiss(keyText, bytes);
    core.keep(keyText, stamp, value, bytes);
    return value;
  }

  @Override
  public void put(K key, V value) {
    String keyText = core.keyText(key);
    byte[] bytes = core.encode(keyText, value);
    try {
      await(core.store(keyText, bytes), 1, "SET " + keyText);
    } finally {
      core.dropNear(List.of(keyText));
    }
  }

  @Override
  public boolean delete(K key) {
    return session.await(core.delete(key), 1, "DEL " + core.keyText(key));
  }

  @Override
  public boolean exists(K key) {
    return session.await(core.exists(key), 1, "EXISTS " + core.keyText(key));
  }

  @Override
  public Map<K, V> getAll(Collection<? extends K> keys) {
    RedisCacheCore<K, V>.KeyBatch batch = core.batch(keys);
    RedisCacheCore<K, V>.NearSplit split = core.nearSplit(batch);
    RedisCacheCore<K, V>.KeyBatch toRead = split == null ? batch : split.rest;
    byte[][] values = await(core.fetchAll(toRead), core.rounds(toRead.size()), "MGET of " + toRead.size() + " keys");
    Map<K, V> decoded = core.decodeAll(toRead, values);
    return split == null ? decoded : split.found(batch, values, decoded);
  }

  /**
   * Encodes a chunk, sends it, and encodes the next while Redis writes it: at most
   * {@link ChunkWindow#IN_FLIGHT} chunks are in flight, and the caller's thread encodes the next one
   * meanwhile, so that encoding and writing overlap. A value that cannot be encoded stops the call;
   * the chunks before it may have been written.
   */
  @Override
  public void putAll(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    int n = entries.size();
    String what = core.describeWrite(n);
    var remaining = entries.entrySet().iterator();
    List<String> written = new ArrayList<>();
    try {
      putAll(remaining, n, what, written);
    } finally {
      core.dropNear(written);
    }
  }

  private void putAll(Iterator<? extends Map.Entry<? extends K, ? extends V>> remaining, int n, String what,
                      List<String> written) {
    ArrayDeque<CompletableFuture<?>> window = new ArrayDeque<>();
    long sent = 0;
    while (remaining.hasNext()) {
      RedisCacheCore.Prepared chunk;
      try {
        chunk = core.prepare(remaining, core.chunkSize(), n > 1);
      } catch (CodecException e) {
        if (sent == 0) {
          throw e;
        }
        // The chunks already sent are stored once this returns, as the exception says.
        drain(window, what);
        throw new CodecException(e.getMessage() + " (" + what + ": the first " + sent
            + " entries, in the map's order, were stored in earlier chunks; this one and the rest were not)", e);
      }
      if (core.hasNearCache()) {
        written.addAll(RedisCacheCore.texts(chunk.keys));
      }
      if (window.size() == ChunkWindow.IN_FLIGHT) {
        await(session.translated(window.removeFirst(), what), 1, what);
      }
      window.addLast(core.dispatchChunk(chunk, 0, chunk.keys.length));
      sent += chunk.keys.length;
    }
    drain(window, what);
  }

  private void drain(ArrayDeque<CompletableFuture<?>> window, String what) {
    while (!window.isEmpty()) {
      await(session.translated(window.removeFirst(), what), 1, what);
    }
  }

  @Override
  public long deleteAll(Collection<? extends K> keys) {
    requireNonNull(keys, "keys");
    return session.await(core.deleteAll(keys), core.rounds(keys.size()), "DEL of " + keys.size() + " keys");
  }

  @Override
  public @Nullable V getOrLoad(K key, Function<? super K, ? extends V> loader) {
    requireNonNull(loader, "loader");
    String keyText = core.keyText(key);
    V kept = core.nearValue(keyText);
    if (kept != null) {
      return kept;
    }
    long stamp = core.stamp(keyText);
    byte[] bytes;
    try {
      bytes = await(core.fetch(keyText), 1, "GET " + keyText);
    } catch (CacheUnavailableException e) {
      if (!core.loadsWhenUnavailable()) {
        throw e;
      }
      return core.loadWithoutRedis(key, keyText, loader);
    }
    return core.valueOrLoad(key, keyText, stamp, bytes, loader);
  }

  @Override
  public Map<K, V> getAllOrLoad(Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    requireNonNull(loader, "loader");
    RedisCacheCore<K, V>.KeyBatch batch = core.batch(keys);
    RedisCacheCore<K, V>.NearSplit split = core.nearSplit(batch);
    RedisCacheCore<K, V>.KeyBatch toRead = split == null ? batch : split.rest;
    byte[][] values = await(core.fetchAll(toRead), core.rounds(toRead.size()), "MGET of " + toRead.size() + " keys");
    Set<K> absent = new LinkedHashSet<>();
    Map<K, V> decoded = core.decodeAll(toRead, values, absent);
    Map<K, V> found = split == null ? decoded : split.found(batch, values, decoded);
    return found.size() + absent.size() == batch.size() ? found
        : core.loadAllInCallerThread(batch, found, absent, loader);
  }

  @Override
  public AsyncRedisCache<K, V> async() {
    return core;
  }

  @Override
  public CacheStats stats() {
    return core.stats();
  }

  @Override
  public String redisKey(K key) {
    return core.keyText(key);
  }

  @Override
  public String toString() {
    return "RedisCache[" + core.name() + "]";
  }
}
