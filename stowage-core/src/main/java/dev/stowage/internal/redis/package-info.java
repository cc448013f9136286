/**
 * The Redis side of {@link dev.stowage.Stowage}: the storage strategy the cache engine runs on and
 * its two storages (key-per-value and packed), the shared connection for one server, Sentinel and
 * Cluster, the slot plan and chunked writes, client tracking and the near store, and the script
 * runner. This package is part of the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.redis;

import org.jspecify.annotations.NullMarked;
