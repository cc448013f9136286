package dev.stowage.cli.inspect;

import dev.stowage.Inspector;
import dev.stowage.Stowage;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --redis URL}, shared by every command that reads Redis, or {@code --redis-cluster URL,...}
 * for a Redis Cluster (any of its nodes). There is no default server: the URL comes from an option
 * or from the {@value #ENVIRONMENT_VARIABLE} environment variable, so a command never reads a
 * server nobody named. On a cluster, {@code SCAN} and {@code DBSIZE} run on every master (Lettuce's
 * cluster commands), and a command on a key goes to the master that serves the key's slot.
 */
public final class RedisOption {
  /** The environment variable read when {@code --redis} is absent. */
  public static final String ENVIRONMENT_VARIABLE = "STOWAGE_REDIS";

  @Option(
      names = "--redis",
      paramLabel = "URL",
      description =
          "Redis to read, such as redis://127.0.0.1:6379/0 (default: the "
              + ENVIRONMENT_VARIABLE
              + " environment variable; there is no built-in default).")
  String url;

  @Option(
      names = "--redis-cluster",
      paramLabel = "URL",
      split = ",",
      description =
          "A Redis Cluster to read instead, through one or more of its nodes, such as "
              + "redis://10.0.0.1:6379,redis://10.0.0.2:6379: scans walk every master, keys are read from their node.")
  List<String> clusterUrls;

  /**
   * The URL to use.
   *
   * @throws ParameterException (a usage error, exit code 2) when neither the option nor the
   *     environment variable names a server
   */
  String url(CommandSpec spec) {
    String chosen = url != null ? url : System.getenv(ENVIRONMENT_VARIABLE);
    if (chosen == null || chosen.isBlank()) {
      throw new ParameterException(
          spec.commandLine(),
          "no Redis to read: pass --redis URL (such as "
              + "redis://127.0.0.1:6379) or set "
              + ENVIRONMENT_VARIABLE
              + "; there is no default server");
    }
    return chosen.strip();
  }

  /**
   * Connects to the server, or the cluster, with byte-array keys and values; the caller closes the
   * result.
   */
  public RedisSession connect(CommandSpec spec) {
    if (clusterUrls != null && !clusterUrls.isEmpty()) {
      if (url != null) {
        throw new ParameterException(
            spec.commandLine(), "--redis and --redis-cluster name two servers; pass one");
      }
      List<RedisURI> seeds = new ArrayList<>();
      for (String seed : clusterUrls) {
        seeds.add(parse(spec, "--redis-cluster", seed.strip()));
      }
      String chosen = String.join(",", clusterUrls);
      RedisClusterClient client = RedisClusterClient.create(seeds);
      try {
        return new RedisSession(
            chosen,
            client,
            client.connect(ByteArrayCodec.INSTANCE),
            () -> Stowage.builder().redisCluster(seeds));
      } catch (RuntimeException e) {
        client.shutdown(0, 2, TimeUnit.SECONDS);
        throw new InspectException(
            "could not connect to the cluster " + chosen + ": " + causeChain(e), e);
      }
    }
    String chosen = url(spec);
    RedisURI uri = parse(spec, "--redis", chosen);
    RedisClient client = RedisClient.create(uri);
    try {
      return new RedisSession(
          chosen,
          client,
          client.connect(ByteArrayCodec.INSTANCE),
          () -> Stowage.builder().redis(uri));
    } catch (RuntimeException e) {
      client.shutdown(0, 2, TimeUnit.SECONDS);
      throw new InspectException("could not connect to " + chosen + ": " + causeChain(e), e);
    }
  }

  private static RedisURI parse(CommandSpec spec, String option, String text) {
    RedisURI uri;
    try {
      uri = RedisURI.create(text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          option + ": not a Redis URL: '" + text + "' (" + e.getMessage() + ")");
    }
    uri.setTimeout(Duration.ofSeconds(30));
    return uri;
  }

  /**
   * The messages along a cause chain, each once, joined by colons: Lettuce's "Unable to connect to
   * host:port" keeps the server's own reply (such as {@code ERR DB index is out of range}) in a
   * cause.
   */
  @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the chain
  static String causeChain(Throwable error) {
    StringBuilder text = new StringBuilder();
    Throwable e = error;
    for (int depth = 0;
        e != null && depth < 10;
        depth++, e = e.getCause() == e ? null : e.getCause()) {
      String message = e.getMessage();
      if (message != null && !message.isBlank() && text.indexOf(message) < 0) {
        text.append(text.length() == 0 ? "" : ": ").append(message);
      }
    }
    return text.length() == 0 ? error.toString() : text.toString();
  }

  /**
   * A client and its one connection: a {@link StatefulRedisConnection}, or a {@link
   * StatefulRedisClusterConnection} for a cluster; and, made on first use, a {@link Stowage} over
   * the same server whose {@link Inspector} reads envelopes as a cache would (dictionaries from
   * Redis, the library's own limits).
   */
  public static final class RedisSession implements AutoCloseable {
    private final String url;
    private final AbstractRedisClient client;
    private final StatefulConnection<byte[], byte[]> connection;
    private final Supplier<Stowage.Builder> stowageBuilder;
    private @Nullable Stowage stowage;

    RedisSession(
        String url,
        AbstractRedisClient client,
        StatefulConnection<byte[], byte[]> connection,
        Supplier<Stowage.Builder> stowageBuilder) {
      this.url = url;
      this.client = client;
      this.connection = connection;
      this.stowageBuilder = stowageBuilder;
    }

    /** The URL, or the cluster's seed URLs joined by commas, as the user gave them. */
    public String url() {
      return url;
    }

    /** The connection, with byte-array keys and values. */
    public StatefulConnection<byte[], byte[]> connection() {
      return connection;
    }

    /** The blocking commands, on one server or across the cluster. */
    public RedisClusterCommands<byte[], byte[]> sync() {
      return connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster
          ? cluster.sync()
          : ((StatefulRedisConnection<byte[], byte[]>) connection).sync();
    }

    /** The asynchronous commands, on one server or across the cluster. */
    public RedisClusterAsyncCommands<byte[], byte[]> async() {
      return connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster
          ? cluster.async()
          : ((StatefulRedisConnection<byte[], byte[]>) connection).async();
    }

    /**
     * The inspector of a {@link Stowage} over the same server, connected on first use and closed
     * with this session.
     *
     * @throws InspectException if that connection fails
     */
    public synchronized Inspector inspector() {
      if (stowage == null) {
        try {
          stowage = stowageBuilder.get().build();
        } catch (RuntimeException e) {
          throw new InspectException("could not connect to " + url + ": " + causeChain(e), e);
        }
      }
      return stowage.inspector();
    }

    @Override
    public synchronized void close() {
      if (stowage != null) {
        stowage.close();
      }
      connection.close();
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }
}
