package dev.stowage.internal.redis;

import dev.stowage.compress.DictionaryStore;

/** A feed's validated settings, from {@link dev.stowage.Feed.Builder}. */
public record FeedSettings<V>(String name, String key, String counterKey, String counterField,
                              WriteCodec<V> codec, DictionaryStore dictionaries, int chunkSize) {}
