package dev.stowage.bench;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

/**
 * The Redis a benchmark runs against, as each peer client wants to be told: the URI's host, port,
 * database, user and password, and TLS ({@code rediss://}), so that a peer reaches the same server
 * with the same credentials as Stowage's rows do.
 */
public final class RedisTarget {
  private final RedisURI uri;

  /** The target {@code uri} names. */
  public RedisTarget(RedisURI uri) {
    this.uri = Objects.requireNonNull(uri, "uri");
  }

  /** Whether the connection is TLS. */
  public boolean tls() {
    return uri.isSsl();
  }

  /** Spring Data Redis's standalone configuration: host, port, database, user and password. */
  public RedisStandaloneConfiguration springStandalone() {
    RedisStandaloneConfiguration config =
        new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
    config.setDatabase(uri.getDatabase());
    if (uri.getUsername() != null) {
      config.setUsername(uri.getUsername());
    }
    if (uri.getPassword() != null) {
      config.setPassword(RedisPassword.of(uri.getPassword()));
    }
    return config;
  }

  /** A Redisson configuration for the single server, with database, credentials and TLS. */
  public Config redisson() {
    Config config = new Config();
    SingleServerConfig server =
        config
            .useSingleServer()
            .setAddress(
                (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort())
            .setDatabase(uri.getDatabase());
    if (uri.getUsername() != null) {
      server.setUsername(uri.getUsername());
    }
    if (uri.getPassword() != null) {
      server.setPassword(new String(uri.getPassword()));
    }
    return config;
  }

  /** {@code redis-benchmark}'s options for this target: host, port, database, credentials, TLS. */
  public List<String> redisBenchmarkOptions() {
    List<String> options =
        new ArrayList<>(List.of("-h", uri.getHost(), "-p", Integer.toString(uri.getPort())));
    if (uri.getDatabase() != 0) {
      options.addAll(List.of("--dbnum", Integer.toString(uri.getDatabase())));
    }
    if (uri.getUsername() != null) {
      options.addAll(List.of("--user", uri.getUsername()));
    }
    if (uri.getPassword() != null) {
      options.addAll(List.of("-a", new String(uri.getPassword())));
    }
    if (uri.isSsl()) {
      options.add("--tls");
    }
    return options;
  }
}
