package dev.stowage.board;

import static java.util.Objects.requireNonNull;

import dev.stowage.board.tcp.TcpOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;

/**
 * The {@code stowage.board.tcp.*} properties, to and from {@link TcpOptions}: {@code port}, {@code
 * tls-port}, {@code tls-cert}, {@code tls-key}, {@code tls-self-signed}, {@code host}, {@code
 * max-frame-bytes}, {@code idle-timeout-ms}, {@code read-timeout-ms}, {@code frame-timeout-ms},
 * {@code max-connections}, {@code max-connections-per-address}, {@code max-in-flight}, {@code
 * max-posts-in-flight}, {@code max-unsent-bytes} and {@code write-timeout-ms}.
 */
final class TcpProperties {
  private static final String PREFIX = "stowage.board.tcp.";

  private TcpProperties() {}

  /** The options the environment configures, or null when it names no TCP port. */
  static @Nullable TcpOptions read(Environment env) {
    String port = nonBlank(env.getProperty(PREFIX + "port"));
    String tlsPort = nonBlank(env.getProperty(PREFIX + "tls-port"));
    if (port == null && tlsPort == null) {
      return null;
    }
    TcpOptions.Builder b = TcpOptions.builder();
    if (port != null) {
      b.port(Integer.parseInt(port.trim()));
    }
    if (tlsPort != null) {
      b.tlsPort(Integer.parseInt(tlsPort.trim()));
    }
    String cert = nonBlank(env.getProperty(PREFIX + "tls-cert"));
    String key = nonBlank(env.getProperty(PREFIX + "tls-key"));
    if (cert != null || key != null) {
      if (cert == null || key == null) {
        throw new IllegalArgumentException(
            "give both "
                + PREFIX
                + "tls-cert and "
                + PREFIX
                + "tls-key (--tls-cert and --tls-key)");
      }
      b.tlsCertificate(Path.of(cert), Path.of(key));
    }
    if (Boolean.parseBoolean(env.getProperty(PREFIX + "tls-self-signed", "false"))) {
      b.tlsSelfSigned();
    }
    String host = nonBlank(env.getProperty(PREFIX + "host"));
    if (host != null) {
      b.host(host.trim());
    }
    Integer maxFrame = env.getProperty(PREFIX + "max-frame-bytes", Integer.class);
    if (maxFrame != null) {
      b.maxFrameBytes(maxFrame);
    }
    Long idle = env.getProperty(PREFIX + "idle-timeout-ms", Long.class);
    if (idle != null) {
      b.idleTimeout(Duration.ofMillis(idle));
    }
    Long read = env.getProperty(PREFIX + "read-timeout-ms", Long.class);
    if (read != null) {
      b.readTimeout(Duration.ofMillis(read));
    }
    Long frame = env.getProperty(PREFIX + "frame-timeout-ms", Long.class);
    if (frame != null) {
      b.frameTimeout(Duration.ofMillis(frame));
    }
    Integer maxConnections = env.getProperty(PREFIX + "max-connections", Integer.class);
    if (maxConnections != null) {
      b.maxConnections(maxConnections);
    }
    Integer perAddress = env.getProperty(PREFIX + "max-connections-per-address", Integer.class);
    if (perAddress != null) {
      b.maxConnectionsPerAddress(perAddress);
    }
    Integer maxInFlight = env.getProperty(PREFIX + "max-in-flight", Integer.class);
    if (maxInFlight != null) {
      b.maxInFlight(maxInFlight);
    }
    Integer maxPosts = env.getProperty(PREFIX + "max-posts-in-flight", Integer.class);
    if (maxPosts != null) {
      b.maxPostsInFlight(maxPosts);
    }
    Integer maxUnsent = env.getProperty(PREFIX + "max-unsent-bytes", Integer.class);
    if (maxUnsent != null) {
      b.maxUnsentBytes(maxUnsent);
    }
    Long write = env.getProperty(PREFIX + "write-timeout-ms", Long.class);
    if (write != null) {
      b.writeTimeout(Duration.ofMillis(write));
    }
    return b.build();
  }

  /** The properties that {@link #read} turns back into {@code options}. */
  static Map<String, Object> of(TcpOptions options) {
    Map<String, Object> properties = new LinkedHashMap<>();
    if (options.port() != null) {
      properties.put(PREFIX + "port", options.port());
    }
    if (options.tlsPort() != null) {
      properties.put(PREFIX + "tls-port", options.tlsPort());
    }
    if (options.tlsCertificate() != null) {
      properties.put(PREFIX + "tls-cert", options.tlsCertificate().toString());
      properties.put(
          PREFIX + "tls-key", requireNonNull(options.tlsPrivateKey(), "tlsPrivateKey").toString());
    }
    properties.put(PREFIX + "tls-self-signed", options.tlsSelfSigned());
    properties.put(PREFIX + "host", options.host());
    properties.put(PREFIX + "max-frame-bytes", options.maxFrameBytes());
    properties.put(PREFIX + "idle-timeout-ms", options.idleTimeout().toMillis());
    properties.put(PREFIX + "read-timeout-ms", options.readTimeout().toMillis());
    properties.put(PREFIX + "frame-timeout-ms", options.frameTimeout().toMillis());
    properties.put(PREFIX + "max-connections", options.maxConnections());
    properties.put(PREFIX + "max-connections-per-address", options.maxConnectionsPerAddress());
    properties.put(PREFIX + "max-in-flight", options.maxInFlight());
    properties.put(PREFIX + "max-posts-in-flight", options.maxPostsInFlight());
    properties.put(PREFIX + "max-unsent-bytes", options.maxUnsentBytes());
    properties.put(PREFIX + "write-timeout-ms", options.writeTimeout().toMillis());
    return properties;
  }

  private static @Nullable String nonBlank(@Nullable String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
