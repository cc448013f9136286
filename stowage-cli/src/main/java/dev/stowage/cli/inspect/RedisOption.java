package dev.stowage.cli.inspect;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --redis URL}, shared by every command that reads Redis. There is no default server: the
 * URL comes from the option or from the {@value #ENVIRONMENT_VARIABLE} environment variable, so a
 * command never reads a server nobody named.
 */
public final class RedisOption {
  /** The environment variable read when {@code --redis} is absent. */
  public static final String ENVIRONMENT_VARIABLE = "STOWAGE_REDIS";

  @Option(names = "--redis", paramLabel = "URL",
      description = "Redis to read, such as redis://127.0.0.1:6379/0 (default: the "
          + ENVIRONMENT_VARIABLE + " environment variable; there is no built-in default).")
  String url;

  /**
   * The URL to use.
   *
   * @throws ParameterException (a usage error, exit code 2) when neither the option nor the
   *     environment variable names a server
   */
  String url(CommandSpec spec) {
    String chosen = url != null ? url : System.getenv(ENVIRONMENT_VARIABLE);
    if (chosen == null || chosen.isBlank()) {
      throw new ParameterException(spec.commandLine(), "no Redis to read: pass --redis URL (such as "
          + "redis://127.0.0.1:6379) or set " + ENVIRONMENT_VARIABLE + "; there is no default server");
    }
    return chosen.strip();
  }

  /** Connects to the server with byte-array keys and values; the caller closes the result. */
  RedisSession connect(CommandSpec spec) {
    String chosen = url(spec);
    RedisURI uri;
    try {
      uri = RedisURI.create(chosen);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--redis: not a Redis URL: '" + chosen + "' ("
          + e.getMessage() + ")");
    }
    uri.setTimeout(Duration.ofSeconds(30));
    RedisClient client = RedisClient.create(uri);
    try {
      return new RedisSession(chosen, client, client.connect(ByteArrayCodec.INSTANCE));
    } catch (RuntimeException e) {
      client.shutdown(0, 2, TimeUnit.SECONDS);
      throw new InspectException("could not connect to " + chosen + ": " + causeChain(e), e);
    }
  }

  /**
   * The messages along a cause chain, each once, joined by colons: Lettuce's "Unable to connect to
   * host:port" keeps the server's own reply (such as {@code ERR DB index is out of range}) in a cause.
   */
  static String causeChain(Throwable error) {
    StringBuilder text = new StringBuilder();
    Throwable e = error;
    for (int depth = 0; e != null && depth < 10; depth++, e = e.getCause() == e ? null : e.getCause()) {
      String message = e.getMessage();
      if (message != null && !message.isBlank() && text.indexOf(message) < 0) {
        text.append(text.length() == 0 ? "" : ": ").append(message);
      }
    }
    return text.length() == 0 ? error.toString() : text.toString();
  }

  /** A client and its one connection. */
  record RedisSession(String url, RedisClient client, StatefulRedisConnection<byte[], byte[]> connection)
      implements AutoCloseable {
    @Override
    public void close() {
      connection.close();
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }
}
