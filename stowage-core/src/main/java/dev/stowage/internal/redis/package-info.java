/**
 * The Redis side of a cache: the storage strategy the cache engine runs on and its two storages
 * (key-per-value and packed), the slot plan and chunked writes, and the script runner. This package
 * is part of the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.redis;

import org.jspecify.annotations.NullMarked;
