package dev.stowage.board;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.core.env.Environment;

/**
 * The properties of {@link HttpOptions}, each falling back to its {@code DEFAULT_*}: Spring Boot's
 * own {@code server.netty.idle-timeout} (a duration such as {@code 60s}), and beside the TCP
 * endpoint's {@code stowage.board.tcp.*}, {@code stowage.board.http.request-read-timeout-ms},
 * {@code stowage.board.http.max-connections}, {@code
 * stowage.board.http.max-connections-per-address}, {@code stowage.board.http.write-timeout-ms} and
 * {@code stowage.board.http.max-unsent-bytes}.
 */
final class HttpProperties {
  static final String IDLE_TIMEOUT = "server.netty.idle-timeout";
  static final String REQUEST_READ_TIMEOUT = "stowage.board.http.request-read-timeout-ms";
  static final String MAX_CONNECTIONS = "stowage.board.http.max-connections";
  static final String MAX_CONNECTIONS_PER_ADDRESS =
      "stowage.board.http.max-connections-per-address";
  static final String WRITE_TIMEOUT = "stowage.board.http.write-timeout-ms";
  static final String MAX_UNSENT_BYTES = "stowage.board.http.max-unsent-bytes";

  private HttpProperties() {}

  /** The options the environment configures, the defaults for what it does not. */
  static HttpOptions read(Environment env) {
    HttpOptions.Builder b = HttpOptions.builder();
    Duration idle = env.getProperty(IDLE_TIMEOUT, Duration.class);
    if (idle != null) {
      b.idleTimeout(idle);
    }
    Long requestRead = env.getProperty(REQUEST_READ_TIMEOUT, Long.class);
    if (requestRead != null) {
      b.requestReadTimeout(Duration.ofMillis(requestRead));
    }
    Integer maxConnections = env.getProperty(MAX_CONNECTIONS, Integer.class);
    if (maxConnections != null) {
      b.maxConnections(maxConnections);
    }
    Integer perAddress = env.getProperty(MAX_CONNECTIONS_PER_ADDRESS, Integer.class);
    if (perAddress != null) {
      b.maxConnectionsPerAddress(perAddress);
    }
    Long write = env.getProperty(WRITE_TIMEOUT, Long.class);
    if (write != null) {
      b.writeTimeout(Duration.ofMillis(write));
    }
    Integer unsent = env.getProperty(MAX_UNSENT_BYTES, Integer.class);
    if (unsent != null) {
      b.maxUnsentBytes(unsent);
    }
    return b.build();
  }

  /** The properties that {@link #read} turns back into {@code options}. */
  static Map<String, Object> of(HttpOptions options) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put(IDLE_TIMEOUT, options.idleTimeout().toMillis() + "ms");
    properties.put(REQUEST_READ_TIMEOUT, options.requestReadTimeout().toMillis());
    properties.put(MAX_CONNECTIONS, options.maxConnections());
    properties.put(MAX_CONNECTIONS_PER_ADDRESS, options.maxConnectionsPerAddress());
    properties.put(WRITE_TIMEOUT, options.writeTimeout().toMillis());
    properties.put(MAX_UNSENT_BYTES, options.maxUnsentBytes());
    return properties;
  }
}
