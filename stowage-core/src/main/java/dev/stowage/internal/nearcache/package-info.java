/**
 * The near cache: a local copy of what a cache or feed read ({@link
 * dev.stowage.internal.nearcache.NearStore}), kept correct by Redis's client tracking on RESP3
 * connections of its own ({@link dev.stowage.internal.nearcache.Tracking} for one server, one
 * connection per master on a cluster). This package is part of the internal API and may change
 * without notice.
 */
@NullMarked
package dev.stowage.internal.nearcache;

import org.jspecify.annotations.NullMarked;
