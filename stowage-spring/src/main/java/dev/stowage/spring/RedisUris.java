package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import java.util.ArrayList;
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
   * host, port, database and credentials), otherwise from the properties; SSL from {@code
   * ssl.enabled} or a {@code rediss://} URL.
   *
   * @throws IllegalArgumentException for master/replica settings, which Stowage does not connect to
   *     yet (cluster settings go to {@link #clusterSeeds})
   */
  static RedisURI of(DataRedisProperties redis, @Nullable DataRedisConnectionDetails details) {
    RedisURI uri = uri(redis, details);
    if (redis.getClientName() != null) {
      uri.setClientName(redis.getClientName());
    }
    return uri;
  }

  /**
   * The nodes of {@code spring.data.redis.cluster.nodes} (or of the connection details' cluster, as
   * a service connection gives them) as seeds, each with the credentials, TLS and client name of
   * the other settings; {@code null} when no cluster is configured.
   */
  static @Nullable List<RedisURI> clusterSeeds(
      DataRedisProperties redis, @Nullable DataRedisConnectionDetails details) {
    DataRedisConnectionDetails.Cluster cluster = details != null ? details.getCluster() : null;
    List<String> hostsAndPorts = new ArrayList<>();
    if (cluster != null) {
      for (DataRedisConnectionDetails.Node node : cluster.getNodes()) {
        hostsAndPorts.add(node.host() + ":" + node.port());
      }
    } else if (details == null
        && redis.getCluster() != null
        && redis.getCluster().getNodes() != null) {
      hostsAndPorts.addAll(redis.getCluster().getNodes());
    }
    if (hostsAndPorts.isEmpty()) {
      return null;
    }
    boolean ssl = redis.getSsl().isEnabled() || (details != null && details.getSslBundle() != null);
    String username = details != null ? details.getUsername() : redis.getUsername();
    String password = details != null ? details.getPassword() : redis.getPassword();
    List<RedisURI> seeds = new ArrayList<>();
    for (String hostAndPort : hostsAndPorts) {
      int colon = hostAndPort.lastIndexOf(':');
      if (colon <= 0 || colon == hostAndPort.length() - 1) {
        throw new IllegalArgumentException(
            "spring.data.redis.cluster.nodes: '" + hostAndPort + "' is not host:port");
      }
      int port;
      try {
        port = Integer.parseInt(hostAndPort.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "spring.data.redis.cluster.nodes: '" + hostAndPort + "' is not host:port", e);
      }
      RedisURI seed =
          credentials(
                  RedisURI.builder()
                      .withHost(hostAndPort.substring(0, colon))
                      .withPort(port)
                      .withSsl(ssl),
                  username,
                  password)
              .build();
      if (redis.getClientName() != null) {
        seed.setClientName(redis.getClientName());
      }
      seeds.add(seed);
    }
    return seeds;
  }

  private static RedisURI uri(
      DataRedisProperties redis, @Nullable DataRedisConnectionDetails details) {
    String url = redis.getUrl();
    boolean ssl = redis.getSsl().isEnabled() || (url != null && url.startsWith("rediss:"));
    if (details == null) {
      if (url != null) {
        return RedisURI.create(url);
      }
      return credentials(
              RedisURI.builder()
                  .withHost(redis.getHost())
                  .withPort(redis.getPort())
                  .withDatabase(redis.getDatabase())
                  .withSsl(ssl),
              redis.getUsername(),
              redis.getPassword())
          .build();
    }
    if (details.getMasterReplica() != null) {
      throw new IllegalArgumentException(
          "spring.data.redis: Stowage connects to one Redis, to a master through"
              + " sentinels or to a cluster, not to a static master/replica set yet");
    }
    RedisURI.Builder builder;
    DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
    if (sentinel != null) {
      List<DataRedisConnectionDetails.Node> nodes = sentinel.getNodes();
      builder =
          RedisURI.builder()
              .withSentinelMasterId(sentinel.getMaster())
              .withDatabase(sentinel.getDatabase());
      for (DataRedisConnectionDetails.Node node : nodes) {
        builder.withSentinel(node.host(), node.port());
      }
    } else {
      DataRedisConnectionDetails.Standalone standalone =
          requireNonNull(
              details.getStandalone(), "spring.data.redis: the connection details name no server");
      builder =
          RedisURI.builder()
              .withHost(standalone.getHost())
              .withPort(standalone.getPort())
              .withDatabase(standalone.getDatabase());
    }
    return credentials(
            builder.withSsl(ssl || details.getSslBundle() != null),
            details.getUsername(),
            details.getPassword())
        .build();
  }

  /**
   * Lettuce's TLS settings of a Spring SSL bundle: its key managers (a client certificate for
   * mutual TLS), its trust managers (the authorities to trust), and the protocols and cipher suites
   * it names, if any.
   */
  static SslOptions sslOptions(SslBundle bundle) {
    SslOptions.Builder ssl =
        SslOptions.builder()
            .jdkSslProvider()
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

  private static RedisURI.Builder credentials(
      RedisURI.Builder builder, @Nullable String username, @Nullable String password) {
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
