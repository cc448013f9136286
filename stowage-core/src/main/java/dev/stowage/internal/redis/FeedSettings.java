package dev.stowage.internal.redis;

import dev.stowage.EnvelopeCodec;

/** A feed's validated settings, from {@link dev.stowage.Feed.Builder}. */
public record FeedSettings<V>(String name, String key, String counterKey, String counterField,
                              EnvelopeCodec<V> codec, int chunkSize) {}
