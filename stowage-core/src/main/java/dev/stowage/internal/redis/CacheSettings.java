package dev.stowage.internal.redis;

import dev.stowage.internal.nearcache.Tracking;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A cache's validated settings, from {@link dev.stowage.RedisCache.Builder}.
 *
 * @param ttl the longest time to live, or {@code null} for none
 * @param loadLock how long the distributed load lock is held at most, or {@code null} for no lock
 * @param absentTtl how long a key the loader found nothing for is cached as absent, or {@code null}
 * @param loadWhenUnavailable whether loads go to the loader while Redis is unavailable
 * @param near the near cache's reader, or {@code null} for none
 */
public record CacheSettings<K, V>(
    String name,
    String keyPrefix,
    Function<? super K, String> keyToString,
    WriteCodec<V> codec,
    EnvelopePreload preload,
    @Nullable Duration ttl,
    double ttlJitter,
    int chunkSize,
    @Nullable Duration loadLock,
    Executor loadExecutor,
    @Nullable Duration absentTtl,
    boolean loadWhenUnavailable,
    Tracking.@Nullable Reader near) {}
