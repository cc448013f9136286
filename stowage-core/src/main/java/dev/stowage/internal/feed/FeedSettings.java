package dev.stowage.internal.feed;

import dev.stowage.internal.nearcache.Tracking;
import dev.stowage.internal.redis.EnvelopePreload;
import dev.stowage.internal.redis.WriteCodec;
import org.jspecify.annotations.Nullable;

/** A feed's validated settings, from {@link dev.stowage.Feed.Builder}. */
public record FeedSettings<V>(
    String name,
    String key,
    String counterKey,
    String counterField,
    WriteCodec<V> codec,
    EnvelopePreload preload,
    int chunkSize,
    Tracking.@Nullable Reader near,
    boolean seal) {}
