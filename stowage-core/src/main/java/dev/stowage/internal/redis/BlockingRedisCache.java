package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheStats;
import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The blocking view of a {@link RedisCacheCore}: each call starts the core's asynchronous operation
 * and waits for it. The operation's own work (decoding, encoding, the loader when this caller leads
 * the load) runs in the calling thread while it waits ({@link CallerRuns}). A wait for Redis alone
 * takes at most the command timeout per round trip; a wait that runs a loader has no bound.
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

  /** Starts an operation whose work runs in this thread, and waits for it. */
  private interface Operation<T> {
    CompletableFuture<T> start(RedisCacheCore.Threads threads);
  }

  /**
   * Runs {@code operation} and waits for it: at most the command timeout per round trip when {@code
   * roundTrips} is positive, with no bound when it is 0 (the operation runs a loader). A failure of
   * the wait itself is counted in the cache's statistics; the operation counts its own.
   */
  private <T> T await(Operation<T> operation, int roundTrips, Supplier<String> what) {
    CallerRuns caller = new CallerRuns(core.fallback());
    CompletableFuture<T> running = operation.start(new RedisCacheCore.Threads(caller, caller));
    long bound = roundTrips == 0 ? -1 : session.awaitNanos(roundTrips);
    boolean done;
    try {
      done = caller.runUntil(running, bound);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw core.countFailure(
          new StowageException(
              "interrupted while waiting for " + what.get() + " of cache '" + core.name() + "'",
              e));
    }
    if (!done) {
      throw core.countFailure(
          new CacheUnavailableException(
              "Redis at "
                  + session.address()
                  + " did not answer "
                  + what.get()
                  + " within "
                  + TimeUnit.NANOSECONDS.toMillis(bound)
                  + " ms"));
    }
    return running.isCompletedExceptionally() ? session.join(running, what.get()) : running.join();
  }

  @Override
  public V get(K key) {
    return await(threads -> core.get(key, threads), 1, () -> "GET " + core.keyText(key));
  }

  @Override
  public void put(K key, V value) {
    session.await(core.put(key, value), 1, "SET " + core.keyText(key));
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
    requireNonNull(keys, "keys");
    return await(
        threads -> core.getAll(keys, threads),
        core.rounds(keys.size()),
        () -> "MGET of " + keys.size() + " keys");
  }

  /**
   * Encodes a chunk in this thread, sends it, and encodes the next while Redis writes it; see
   * {@link ChunkedWriter#writeStreaming}.
   */
  @Override
  public void putAll(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    int n = entries.size();
    await(
        threads -> core.putAllStreaming(entries, threads.work()),
        core.rounds(n),
        () -> core.writer().describeWrite(n));
  }

  @Override
  public long deleteAll(Collection<? extends K> keys) {
    requireNonNull(keys, "keys");
    return session.await(
        core.deleteAll(keys), core.rounds(keys.size()), "DEL of " + keys.size() + " keys");
  }

  /**
   * No bound on the whole: it takes as many round trips as the keyspace has pages; each has the
   * command timeout.
   */
  @Override
  public long clear() {
    return session.join(core.clear(), "clearing cache '" + core.name() + "'");
  }

  @Override
  public @Nullable V getOrLoad(K key, Function<? super K, ? extends V> loader) {
    requireNonNull(loader, "loader");
    return await(
        threads -> core.getOrLoad(key, loader, threads), 0, () -> "loading " + core.keyText(key));
  }

  @Override
  public Map<K, V> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    requireNonNull(keys, "keys");
    requireNonNull(loader, "loader");
    return await(
        threads -> core.getAllOrLoad(keys, loader, threads),
        0,
        () -> "loading " + keys.size() + " keys");
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
  public Compression compression() {
    return core.compression();
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
