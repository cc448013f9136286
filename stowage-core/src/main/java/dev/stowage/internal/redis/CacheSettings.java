package dev.stowage.internal.redis;

import dev.stowage.compress.DictionaryStore;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A cache's validated settings, from {@link dev.stowage.RedisCache.Builder}.
 *
 * @param ttl the longest time to live, or {@code null} for none
 * @param loadLock how long the distributed load lock is held at most, or {@code null} for no lock
 */
public record CacheSettings<K, V>(String name, String keyPrefix, Function<? super K, String> keyToString,
                                  WriteCodec<V> codec, DictionaryStore dictionaries, Duration ttl, double ttlJitter, int chunkSize,
                                  Duration loadLock, Executor loadExecutor) {}
