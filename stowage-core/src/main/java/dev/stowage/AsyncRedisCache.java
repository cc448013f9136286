package dev.stowage;

import dev.stowage.compress.Compression;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The asynchronous view of a {@link RedisCache}, from {@link RedisCache#async()}: the same
 * operations with the same contracts, each returning a future instead of waiting. Failures arrive
 * through the future, never thrown, except for {@code null} arguments. Futures complete on
 * Lettuce's I/O threads or on the {@linkplain RedisCache.Builder#loadExecutor load executor}: do
 * not block in their callbacks. Completing a returned future yourself affects no other caller.
 * Thread-safe.
 *
 * @param <K> the type of the keys
 * @param <V> the type of the values
 */
public interface AsyncRedisCache<K, V> {

  /** See {@link RedisCache#name}; answered locally. */
  String name();

  /**
   * See {@link RedisCache#get}; completes with {@code null} on a miss or a value that cannot be
   * decoded.
   */
  CompletableFuture<@Nullable V> get(K key);

  /** See {@link RedisCache#put}. */
  CompletableFuture<Void> put(K key, V value);

  /** See {@link RedisCache#delete}. */
  CompletableFuture<Boolean> delete(K key);

  /** See {@link RedisCache#exists}. */
  CompletableFuture<Boolean> exists(K key);

  /** See {@link RedisCache#getAll}. */
  CompletableFuture<Map<K, V>> getAll(Collection<? extends K> keys);

  /**
   * See {@link RedisCache#putAll}; every value is encoded in the calling thread before any is sent,
   * so a value that cannot be encoded fails the future with a {@link CodecException} and nothing is
   * stored.
   */
  CompletableFuture<Void> putAll(Map<? extends K, ? extends V> entries);

  /** See {@link RedisCache#deleteAll}. */
  CompletableFuture<Long> deleteAll(Collection<? extends K> keys);

  /** See {@link RedisCache#clear}. */
  CompletableFuture<Long> clear();

  /**
   * See {@link RedisCache#getOrLoad}; the loader runs on the cache's {@linkplain
   * RedisCache.Builder#loadExecutor load executor}, and holds one of its threads while it runs.
   * Reading Redis again, storing the value and, with the distributed lock, polling while another
   * process loads hold no thread. Completes with {@code null} when the loader returns {@code null}
   * or the key is marked absent, as {@link RedisCache#getOrLoad} returns it.
   */
  CompletableFuture<@Nullable V> getOrLoad(K key, Function<? super K, ? extends V> loader);

  /**
   * As {@link #getOrLoad}, for a loader that does not block but returns a stage of its value (a
   * reactive or asynchronous client's call): concurrent callers for one key in this process share
   * one loader call, and, with the {@linkplain RedisCache.Builder#distributedLoadLock distributed
   * lock}, callers in other processes wait for it too. The loader is called on the load executor;
   * its stage's value is stored before the returned future completes with it. A stage that fails,
   * or a loader that throws or returns {@code null} instead of a stage, fails the future and stores
   * nothing; the time to the stage's completion counts as the load's time in {@link
   * RedisCache#stats()}. Completes with {@code null} when the stage completes with {@code null} or
   * the key is marked absent, as {@link #getOrLoad} does.
   */
  CompletableFuture<@Nullable V> getOrLoadAsync(
      K key, Function<? super K, ? extends CompletionStage<? extends V>> loader);

  /** See {@link RedisCache#getAllOrLoad}; the loader runs on the cache's load executor. */
  CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader);

  /** See {@link RedisCache#stats}; answered locally. */
  CacheStats stats();

  /** See {@link RedisCache#compression}; answered locally. */
  Compression compression();

  /** See {@link RedisCache#redisKey}; answered locally. */
  String redisKey(K key);

  /** The blocking view of the same cache. */
  RedisCache<K, V> synchronous();
}
