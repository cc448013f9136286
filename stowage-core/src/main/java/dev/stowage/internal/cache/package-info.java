/**
 * The cache engine: one implementation of every cache operation (counting, decoding, single-flight
 * and distributed loads, absent values, the near cache) over a {@link
 * dev.stowage.internal.redis.CacheStorage}, the layout's Redis commands, and the one blocking view
 * that waits for it. This package is part of the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.cache;

import org.jspecify.annotations.NullMarked;
