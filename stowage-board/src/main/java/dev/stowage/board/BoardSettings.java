package dev.stowage.board;

import dev.stowage.board.events.BoardEventOptions;
import dev.stowage.board.tcp.TcpOptions;
import org.jspecify.annotations.Nullable;

/**
 * What the service was started with.
 *
 * @param mode the read/write path
 * @param redis the Redis URI, such as {@code redis://127.0.0.1:6390}; with {@code redisCluster},
 *     the URIs of some of the cluster's nodes, joined by commas
 * @param redisCluster whether {@code redis} names a Redis Cluster ({@code
 *     stowage.board.redis-cluster}); stowage mode only, without the near cache
 * @param db the database of record: an R2DBC URL, or a {@code mongodb://} URL for {@link
 *     MongoBoardStore}
 * @param compression how stowage mode compresses the posts in its feed
 * @param tcp the TCP endpoint's options, or null when the service opens no TCP port
 * @param http the limits of the HTTP API's connections
 * @param nearCache whether stowage mode keeps pages in the process while Redis says they are
 *     unchanged
 * @param events where each created post's event is published, or null for no events ({@code
 *     stowage.board.kafka.*})
 */
public record BoardSettings(
    BoardMode mode,
    String redis,
    boolean redisCluster,
    String db,
    FeedCompression compression,
    @Nullable TcpOptions tcp,
    HttpOptions http,
    boolean nearCache,
    @Nullable BoardEventOptions events) {}
