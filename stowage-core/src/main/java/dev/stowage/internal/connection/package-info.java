/**
 * The connection of one {@link dev.stowage.Stowage}: {@link
 * dev.stowage.internal.connection.RedisSession} opens the shared connection to one server, to the
 * master Sentinel names, or to a cluster, follows a cluster's topology, dispatches commands,
 * translates Redis's failures into Stowage's exceptions and waits for replies. This package is part
 * of the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.connection;

import org.jspecify.annotations.NullMarked;
