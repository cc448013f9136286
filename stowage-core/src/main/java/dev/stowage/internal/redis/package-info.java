/**
 * The Redis side of {@link dev.stowage.Stowage}: the shared connection, the asynchronous cache that
 * every blocking call waits on, single-flight loads, the distributed load lock and feeds. This
 * package is part of the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.redis;

import org.jspecify.annotations.NullMarked;
