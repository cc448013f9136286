package dev.stowage.internal.connection;

import static java.util.Objects.requireNonNull;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The connector to one server, or to the master that Sentinel names: given a Sentinel URI, Lettuce
 * asks the sentinels for the master's address on every connection and reconnection.
 */
record ServerConnector(RedisClient client, String address, RedisURI target, ClientOptions options)
    implements Connector {
  /**
   * A client of {@code uri} (standalone or Sentinel) on {@code resources}, with {@code given}
   * options as {@link #enforced} makes them.
   */
  static ServerConnector create(
      RedisURI uri,
      Duration timeout,
      Duration connectTimeout,
      ClientResources resources,
      @Nullable ClientOptions given) {
    requireNonNull(uri, "uri");
    RedisURI target = withTimeout(uri, timeout);
    RedisClient client = RedisClient.create(resources, target);
    ClientOptions enforced = enforced(given, timeout, connectTimeout);
    client.setOptions(enforced);
    return new ServerConnector(client, describe(target), target, enforced);
  }

  @Override
  public StatefulConnection<byte[], byte[]> connect() {
    return Connector.connectRetryingLostHandshakes(() -> client.connect(ByteArrayCodec.INSTANCE));
  }

  @Override
  public CompletableFuture<? extends StatefulConnection<byte[], byte[]>> connectAsync() {
    return client.connectAsync(ByteArrayCodec.INSTANCE, target).toCompletableFuture();
  }

  /**
   * A copy of {@code uri} with {@code timeout}. {@code RedisURI.builder(uri)} copies neither the
   * sentinels nor the master's name, so they are added here, each sentinel copied too.
   */
  static RedisURI withTimeout(RedisURI uri, Duration timeout) {
    RedisURI.Builder builder = RedisURI.builder(uri).withTimeout(timeout);
    for (RedisURI sentinel : uri.getSentinels()) {
      builder.withSentinel(RedisURI.builder(sentinel).withTimeout(timeout).build());
    }
    if (uri.getSentinelMasterId() != null) {
      builder.withSentinelMasterId(uri.getSentinelMasterId());
    }
    return builder.build();
  }

  /** {@code given}, or Lettuce's defaults, with what a session's contract rests on. */
  static ClientOptions enforced(
      @Nullable ClientOptions given, Duration timeout, Duration connectTimeout) {
    ClientOptions base =
        given != null
            ? given
            : ClientOptions.builder()
                .socketOptions(SocketOptions.builder().keepAlive(true).build())
                .build();
    return base.mutate()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(base.getSocketOptions().mutate().connectTimeout(connectTimeout).build())
        .build();
  }

  /**
   * The address for messages: {@code host:port}, a socket's path, or, for Sentinel, the master's
   * name and the sentinels: {@code mymaster (sentinels 10.0.0.1:26379, 10.0.0.2:26379)}.
   */
  static String describe(RedisURI uri) {
    if (uri.getHost() != null) {
      return uri.getHost() + ":" + uri.getPort();
    }
    if (uri.getSocket() != null) {
      return uri.getSocket();
    }
    return uri.getSentinelMasterId()
        + " (sentinels "
        + uri.getSentinels().stream()
            .map(sentinel -> sentinel.getHost() + ":" + sentinel.getPort())
            .collect(Collectors.joining(", "))
        + ")";
  }
}
