package dev.stowage.bench;

import io.lettuce.core.RedisCredentials;
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
  private final RedisCredentials credentials;

  /** The target {@code uri} names. */
  public RedisTarget(RedisURI uri) {
    this.uri = Objects.requireNonNull(uri, "uri");
    this.credentials = credentials(uri);
  }

  /** Whether the connection is TLS. */
  public boolean tls() {
    return uri.isSsl();
  }

  /**
   * The user and password a URI names, either of them null when it names none. Lettuce 7 keeps them
   * behind the URI's credentials provider, which for a URI's own answers at once.
   */
  public static RedisCredentials credentials(RedisURI uri) {
    RedisCredentials given = uri.getCredentialsProvider().resolveCredentials().block();
    return given != null ? given : RedisCredentials.just(null, (char[]) null);
  }

  /** Spring Data Redis's standalone configuration: host, port, database, user and password. */
  public RedisStandaloneConfiguration springStandalone() {
    RedisStandaloneConfiguration config =
        new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
    config.setDatabase(uri.getDatabase());
    if (credentials.getUsername() != null) {
      config.setUsername(credentials.getUsername());
    }
    if (credentials.getPassword() != null) {
      config.setPassword(RedisPassword.of(credentials.getPassword()));
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
    if (credentials.getUsername() != null) {
      server.setUsername(credentials.getUsername());
    }
    if (credentials.getPassword() != null) {
      server.setPassword(new String(credentials.getPassword()));
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
    if (credentials.getUsername() != null) {
      options.addAll(List.of("--user", credentials.getUsername()));
    }
    if (credentials.getPassword() != null) {
      options.addAll(List.of("-a", new String(credentials.getPassword())));
    }
    if (uri.isSsl()) {
      options.add("--tls");
    }
    return options;
  }
}
