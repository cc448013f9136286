/**
 * Feeds: {@link dev.stowage.internal.feed.RedisFeed} and its blocking view, the scripts that keep a
 * feed's buckets ({@code .lua} resources beside this package, each told every key it touches in
 * {@code KEYS}), the sealing of full buckets, and the decoding of pages. This package is part of
 * the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.feed;

import org.jspecify.annotations.NullMarked;
