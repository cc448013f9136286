package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;

/** The Lettuce {@link RedisURI} of Spring's {@code spring.data.redis.*} settings. */
final class RedisUris {
  private RedisUris() {}

  /**
   * From the connection details when Spring Boot made them (they hold what the URL says, or the
   * host, port, database and credentials), otherwise from the properties; SSL from
   * {@code ssl.enabled} or a {@code rediss://} URL.
   *
   * @throws IllegalArgumentException for Redis Cluster or master/replica settings, which Stowage
   *     does not connect to yet
   */
  static RedisURI of(DataRedisProperties redis, @Nullable DataRedisConnectionDetails details) {
    RedisURI uri = uri(redis, details);
    if (redis.getClientName() != null) {
      uri.setClientName(redis.getClientName());
    }
    return uri;
  }

  private static RedisURI uri(DataRedisProperties redis, @Nullable DataRedisConnectionDetails details) {
    String url = redis.getUrl();
    boolean ssl = redis.getSsl().isEnabled() || url != null && url.startsWith("rediss:");
    if (details == null) {
      if (url != null) {
        return RedisURI.create(url);
      }
      return credentials(RedisURI.builder().withHost(redis.getHost()).withPort(redis.getPort())
          .withDatabase(redis.getDatabase()).withSsl(ssl), redis.getUsername(), redis.getPassword()).build();
    }
    if (details.getCluster() != null || details.getMasterReplica() != null) {
      throw new IllegalArgumentException("spring.data.redis: Stowage connects to one Redis or to a master through"
          + " sentinels, not to a cluster or a master/replica set yet");
    }
    RedisURI.Builder builder;
    DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
    if (sentinel != null) {
      List<DataRedisConnectionDetails.Node> nodes = sentinel.getNodes();
      builder = RedisURI.builder().withSentinelMasterId(sentinel.getMaster()).withDatabase(sentinel.getDatabase());
      for (DataRedisConnectionDetails.Node node : nodes) {
        builder.withSentinel(node.host(), node.port());
      }
    } else {
      DataRedisConnectionDetails.Standalone standalone = requireNonNull(details.getStandalone(),
          "spring.data.redis: the connection details name no server");
      builder = RedisURI.builder().withHost(standalone.getHost()).withPort(standalone.getPort())
          .withDatabase(standalone.getDatabase());
    }
    return credentials(builder.withSsl(ssl || details.getSslBundle() != null), details.getUsername(),
        details.getPassword()).build();
  }

  /**
   * Lettuce's TLS settings of a Spring SSL bundle: its key managers (a client certificate for mutual
   * TLS), its trust managers (the authorities to trust), and the protocols and cipher suites it
   * names, if any.
   */
  static SslOptions sslOptions(SslBundle bundle) {
    SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider()
        .keyManager(bundle.getManagers().getKeyManagerFactory())
        .trustManager(bundle.getManagers().getTrustManagerFactory());
    String[] protocols = bundle.getOptions().getEnabledProtocols();
    if (protocols != null) {
      ssl.protocols(protocols);
    }
    String[] ciphers = bundle.getOptions().getCiphers();
    if (ciphers != null) {
      ssl.cipherSuites(ciphers);
    }
    return ssl.build();
  }

  private static RedisURI.Builder credentials(RedisURI.Builder builder, @Nullable String username,
                                              @Nullable String password) {
    if (password != null) {
      if (username != null) {
        builder.withAuthentication(username, password);
      } else {
        builder.withPassword(password.toCharArray());
      }
    }
    return builder;
  }
}
