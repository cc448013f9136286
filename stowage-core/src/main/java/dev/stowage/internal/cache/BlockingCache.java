package dev.stowage.internal.cache;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheStats;
import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.internal.Waiting;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.redis.CacheStorage;
import dev.stowage.internal.redis.KeyPerValueStorage;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The blocking view of a {@link CacheEngine}, whatever its storage: each call starts the engine's
 * asynchronous operation and waits for it. The operation's own work (decoding, encoding, the loader
 * when this caller leads the load) runs in the calling thread while it waits ({@link Waiting}). A
 * wait for Redis alone takes at most the command timeout per round trip; a wait that runs a loader
 * has no bound.
 */
final class BlockingCache<K, V> implements RedisCache<K, V> {
  private final CacheEngine<K, V> engine;
  private final CacheStorage<K, V> storage;
  private final RedisSession session;

  BlockingCache(CacheEngine<K, V> engine) {
    this.engine = engine;
    this.storage = engine.storage;
    this.session = engine.session;
  }

  @Override
  public String name() {
    return engine.name();
  }

  /**
   * Runs {@code operation} and waits for it: at most the command timeout per round trip when {@code
   * roundTrips} is positive, with no bound when it is 0 (the operation runs a loader). A failure of
   * the wait itself is counted in the cache's statistics; the operation counts its own.
   */
  private <T> T await(
      Function<CacheEngine.Threads, CompletableFuture<T>> operation,
      int roundTrips,
      Supplier<String> what) {
    long bound = roundTrips == 0 ? Waiting.NO_BOUND : session.awaitNanos(roundTrips);
    CompletableFuture<T> done;
    try {
      done =
          Waiting.inCallerThread(
              caller -> operation.apply(new CacheEngine.Threads(caller, caller)),
              engine.fallback(),
              bound);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw engine.countFailure(
          new StowageException(
              "interrupted while waiting for " + what.get() + " of " + engine.owner, e));
    } catch (TimeoutException e) {
      throw engine.countFailure(
          new CacheUnavailableException(
              "Redis at "
                  + session.address()
                  + " did not answer "
                  + what.get()
                  + " within "
                  + TimeUnit.NANOSECONDS.toMillis(bound)
                  + " ms"));
    }
    return done.isCompletedExceptionally() ? session.join(done, what.get()) : done.join();
  }

  private String describe(CacheStorage.Operation operation, K key) {
    return storage.describe(operation, engine.keyText(key));
  }

  @Override
  public @Nullable V get(K key) {
    // A near hit answers before the key text is built or any future or wait is set up: it is the
    // call a near cache serves most, and costs a lookup (NearHitBenchmark).
    String entryText = engine.entryText(key);
    V kept = engine.nearEntry(entryText);
    if (kept != null) {
      return kept;
    }
    String keyText = engine.keyTextOfEntry(entryText);
    return await(
        threads -> engine.fetchOne(keyText, threads),
        1,
        () -> storage.describe(CacheStorage.Operation.READ, keyText));
  }

  @Override
  public void put(K key, V value) {
    session.await(engine.put(key, value), 1, describe(CacheStorage.Operation.WRITE, key));
  }

  @Override
  public boolean delete(K key) {
    return session.await(engine.delete(key), 1, describe(CacheStorage.Operation.DELETE, key));
  }

  @Override
  public boolean exists(K key) {
    return session.await(engine.exists(key), 1, describe(CacheStorage.Operation.EXISTS, key));
  }

  @Override
  public Map<K, V> getAll(Collection<? extends K> keys) {
    requireNonNull(keys, "keys");
    return await(
        threads -> engine.getAll(keys, threads),
        storage.rounds(keys.size()),
        () -> storage.describe(CacheStorage.Operation.READ_MANY, keys.size() + " keys"));
  }

  /** Encodes a chunk in this thread, sends it, and encodes the next while Redis writes it. */
  @Override
  public void putAll(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    int n = entries.size();
    await(
        threads -> engine.putAllStreaming(entries, threads.work()),
        storage.rounds(n),
        () -> storage.describeWrite(n));
  }

  @Override
  public long deleteAll(Collection<? extends K> keys) {
    requireNonNull(keys, "keys");
    return session.await(
        engine.deleteAll(keys),
        storage.rounds(keys.size()),
        storage.describe(CacheStorage.Operation.DELETE_MANY, keys.size() + " keys"));
  }

  /**
   * No bound on the whole: it takes as many round trips as the keyspace has pages; each has the
   * command timeout.
   */
  @Override
  public long clear() {
    return session.join(engine.clear(), "clearing " + engine.owner);
  }

  @Override
  public @Nullable V getOrLoad(K key, Function<? super K, ? extends V> loader) {
    requireNonNull(loader, "loader");
    return await(
        threads -> engine.getOrLoad(key, loader, threads),
        0,
        () -> "loading " + engine.keyText(key));
  }

  @Override
  public Map<K, V> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    requireNonNull(keys, "keys");
    requireNonNull(loader, "loader");
    return await(
        threads -> engine.getAllOrLoad(keys, loader, threads),
        0,
        () -> "loading " + keys.size() + " keys");
  }

  @Override
  public AsyncRedisCache<K, V> async() {
    return engine;
  }

  @Override
  public CacheStats stats() {
    return engine.stats();
  }

  @Override
  public Compression compression() {
    return engine.compression();
  }

  @Override
  public String redisKey(K key) {
    return storage.redisKey(engine.keyText(key));
  }

  @Override
  public String toString() {
    return storage instanceof KeyPerValueStorage
        ? "RedisCache[" + engine.name() + "]"
        : "RedisCache[" + engine.name() + ", " + storage + "]";
  }
}
