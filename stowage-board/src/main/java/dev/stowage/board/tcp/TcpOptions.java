package dev.stowage.board.tcp;

import dev.stowage.board.OptionBounds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the board's TCP endpoint: which ports to open (plain, TLS, or both), the TLS
 * certificate, and the limits that protect the server. Immutable; built by {@link #builder()},
 * validated by {@link Builder#build()}.
 *
 * <pre>{@code
 * TcpOptions tcp = TcpOptions.builder().port(7070).tlsPort(7443).tlsSelfSigned()
 *     .idleTimeout(Duration.ofSeconds(30)).build();
 * }</pre>
 */
public final class TcpOptions {
  /** Largest frame length accepted by default: 4 MiB. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

  /**
   * The ceiling of {@link Builder#maxFrameBytes}: 64 MiB. Keeping lengths below {@code 0x16000000}
   * is what lets the server recognise a TLS handshake (first byte {@code 0x16}) on the plain port.
   */
  public static final int MAX_MAX_FRAME_BYTES = 64 * 1024 * 1024;

  /** A connection with no request in flight and nothing received for this long is closed: 60 s. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  /** A connection that started a frame and then sent nothing for this long is closed: 10 s. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);

  /**
   * A connection whose frame, once begun, is not complete this long after is closed, however
   * steadily its bytes trickle in: 30 s.
   */
  public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Most open connections. A connection beyond them closes the longest idle one to make room, or,
   * when every connection is busy, gets a closing frame itself: 4,096.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 4096;

  /** Most open connections from one remote address; further ones get a closing frame: 256. */
  public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;

  /** Requests in flight per connection beyond which the server stops reading it: 1,024. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 1024;

  /**
   * Posts that one connection's page requests may ask for at once (a page request counts its size
   * from when it is read until its reply has left the server), beyond which the server reads no
   * further request from it: 4,000. It bounds the Redis and database reads behind one connection's
   * pages, and the replies they make, to 4,000 × {@link
   * dev.stowage.board.BoardLimits#MAX_POST_BYTES} (250 MiB) at worst, whatever the client does not
   * read; the 256 users of {@code stowage bench transport}, one page of 25 in flight each, ask for
   * 6,400 at most, and on one connection keep 160 pages in flight, more than the server can work on
   * at once. A page request larger than the bound is still served once nothing else is in flight.
   */
  public static final int DEFAULT_MAX_POSTS_IN_FLIGHT = 4000;

  /**
   * Most bytes of replies one connection may hold unsent (written by the server, not yet taken by
   * the operating system because the client does not read): 16 MiB. The server stops reading a
   * connection once half of it is unsent, and closes a connection whose next reply would take it
   * past the bound (one reply larger than the bound alone is still sent).
   */
  public static final int DEFAULT_MAX_UNSENT_BYTES = 16 * 1024 * 1024;

  /**
   * A connection holding a reply that has not left the server this long after it was written (its
   * client does not read) is closed and its unsent replies released: 30 s.
   */
  public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(30);

  /** The address both ports bind to by default. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  private final String host;
  private final @Nullable Integer port;
  private final @Nullable Integer tlsPort;
  private final @Nullable Path tlsCertificate;
  private final @Nullable Path tlsPrivateKey;
  private final boolean tlsSelfSigned;
  private final int maxFrameBytes;
  private final Duration idleTimeout;
  private final Duration readTimeout;
  private final Duration frameTimeout;
  private final int maxConnections;
  private final int maxConnectionsPerAddress;
  private final int maxInFlight;
  private final int maxPostsInFlight;
  private final int maxUnsentBytes;
  private final Duration writeTimeout;

  private TcpOptions(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.tlsPort = b.tlsPort;
    this.tlsCertificate = b.tlsCertificate;
    this.tlsPrivateKey = b.tlsPrivateKey;
    this.tlsSelfSigned = b.tlsSelfSigned;
    this.maxFrameBytes = b.maxFrameBytes;
    this.idleTimeout = b.idleTimeout;
    this.readTimeout = b.readTimeout;
    this.frameTimeout = b.frameTimeout;
    this.maxConnections = b.maxConnections;
    this.maxConnectionsPerAddress = b.maxConnectionsPerAddress;
    this.maxInFlight = b.maxInFlight;
    this.maxPostsInFlight = b.maxPostsInFlight;
    this.maxUnsentBytes = b.maxUnsentBytes;
    this.writeTimeout = b.writeTimeout;
  }

  /** A builder with the defaults and no port. */
  public static Builder builder() {
    return new Builder();
  }

  /** The address to bind. */
  public String host() {
    return host;
  }

  /** The plain port (0 for an ephemeral one), or null when there is none. */
  public @Nullable Integer port() {
    return port;
  }

  /** The TLS port (0 for an ephemeral one), or null when there is none. */
  public @Nullable Integer tlsPort() {
    return tlsPort;
  }

  /** The PEM certificate chain for TLS, or null (self-signed or no TLS). */
  public @Nullable Path tlsCertificate() {
    return tlsCertificate;
  }

  /** The PEM (PKCS#8) private key for TLS, or null (self-signed or no TLS). */
  public @Nullable Path tlsPrivateKey() {
    return tlsPrivateKey;
  }

  /** Whether a self-signed certificate for {@code localhost} is generated at start. */
  public boolean tlsSelfSigned() {
    return tlsSelfSigned;
  }

  /** The largest frame length (the length field's value) the server reads. */
  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  /** How long a connection may stay quiet with no request in flight. */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** How long a connection may pause in the middle of a frame. */
  public Duration readTimeout() {
    return readTimeout;
  }

  /** How long a frame may take from its first byte to its last. */
  public Duration frameTimeout() {
    return frameTimeout;
  }

  /** The most connections open at once, plain and TLS together. */
  public int maxConnections() {
    return maxConnections;
  }

  /** The most connections open at once from one remote address, plain and TLS together. */
  public int maxConnectionsPerAddress() {
    return maxConnectionsPerAddress;
  }

  /** Requests in flight on one connection beyond which the server pauses reading it. */
  public int maxInFlight() {
    return maxInFlight;
  }

  /**
   * Posts one connection's page requests may ask for at once before the server pauses reading it;
   * see {@link #DEFAULT_MAX_POSTS_IN_FLIGHT}.
   */
  public int maxPostsInFlight() {
    return maxPostsInFlight;
  }

  /**
   * Most bytes of replies one connection may hold unsent; see {@link #DEFAULT_MAX_UNSENT_BYTES}.
   */
  public int maxUnsentBytes() {
    return maxUnsentBytes;
  }

  /** How long a written reply may wait to leave the server before its connection is closed. */
  public Duration writeTimeout() {
    return writeTimeout;
  }

  /** Whether any port is configured. */
  public boolean enabled() {
    return port != null || tlsPort != null;
  }

  /** A builder holding these options, to change some of them. */
  public Builder mutate() {
    Builder b = new Builder();
    b.host = host;
    b.port = port;
    b.tlsPort = tlsPort;
    b.tlsCertificate = tlsCertificate;
    b.tlsPrivateKey = tlsPrivateKey;
    b.tlsSelfSigned = tlsSelfSigned;
    b.maxFrameBytes = maxFrameBytes;
    b.idleTimeout = idleTimeout;
    b.readTimeout = readTimeout;
    b.frameTimeout = frameTimeout;
    b.maxConnections = maxConnections;
    b.maxConnectionsPerAddress = maxConnectionsPerAddress;
    b.maxInFlight = maxInFlight;
    b.maxPostsInFlight = maxPostsInFlight;
    b.maxUnsentBytes = maxUnsentBytes;
    b.writeTimeout = writeTimeout;
    return b;
  }

  @Override
  public String toString() {
    return "TcpOptions{host="
        + host
        + ", port="
        + port
        + ", tlsPort="
        + tlsPort
        + (tlsSelfSigned
            ? ", self-signed"
            : tlsCertificate != null ? ", cert=" + tlsCertificate : "")
        + ", maxFrameBytes="
        + maxFrameBytes
        + ", idleTimeout="
        + idleTimeout
        + ", readTimeout="
        + readTimeout
        + ", frameTimeout="
        + frameTimeout
        + ", maxConnections="
        + maxConnections
        + ", maxConnectionsPerAddress="
        + maxConnectionsPerAddress
        + ", maxInFlight="
        + maxInFlight
        + ", maxPostsInFlight="
        + maxPostsInFlight
        + ", maxUnsentBytes="
        + maxUnsentBytes
        + ", writeTimeout="
        + writeTimeout
        + "}";
  }

  /** Builds {@link TcpOptions}; not thread-safe. */
  public static final class Builder {
    private String host = DEFAULT_HOST;
    private @Nullable Integer port;
    private @Nullable Integer tlsPort;
    private @Nullable Path tlsCertificate;
    private @Nullable Path tlsPrivateKey;
    private boolean tlsSelfSigned;
    private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private Duration frameTimeout = DEFAULT_FRAME_TIMEOUT;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
    private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
    private int maxPostsInFlight = DEFAULT_MAX_POSTS_IN_FLIGHT;
    private int maxUnsentBytes = DEFAULT_MAX_UNSENT_BYTES;
    private Duration writeTimeout = DEFAULT_WRITE_TIMEOUT;

    private Builder() {}

    /** The address to bind; {@link TcpOptions#DEFAULT_HOST} by default. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** Opens a plain port; 0 for an ephemeral one, null for none. */
    public Builder port(Integer port) {
      this.port = checkPort(port, "port");
      return this;
    }

    /** Opens a TLS port (needs a certificate or {@link #tlsSelfSigned()}); null for none. */
    public Builder tlsPort(Integer tlsPort) {
      this.tlsPort = checkPort(tlsPort, "tlsPort");
      return this;
    }

    /** The PEM certificate chain and PEM (PKCS#8) private key files for the TLS port. */
    public Builder tlsCertificate(Path certificate, Path privateKey) {
      this.tlsCertificate = Objects.requireNonNull(certificate, "certificate");
      this.tlsPrivateKey = Objects.requireNonNull(privateKey, "privateKey");
      return this;
    }

    /** Generates a self-signed certificate for {@code localhost} at start, for tests and demos. */
    public Builder tlsSelfSigned() {
      this.tlsSelfSigned = true;
      return this;
    }

    /** The largest frame length read, 64 to {@link #MAX_MAX_FRAME_BYTES}. */
    public Builder maxFrameBytes(int maxFrameBytes) {
      if (maxFrameBytes < 64 || maxFrameBytes > MAX_MAX_FRAME_BYTES) {
        throw new IllegalArgumentException(
            "maxFrameBytes must be from 64 to " + MAX_MAX_FRAME_BYTES + ", got " + maxFrameBytes);
      }
      this.maxFrameBytes = maxFrameBytes;
      return this;
    }

    /** How long a connection may stay quiet with no request in flight; positive. */
    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = OptionBounds.positive(idleTimeout, "idleTimeout");
      return this;
    }

    /** How long a connection may pause in the middle of a frame; positive. */
    public Builder readTimeout(Duration readTimeout) {
      this.readTimeout = OptionBounds.positive(readTimeout, "readTimeout");
      return this;
    }

    /**
     * How long a frame may take from its first byte to its last, however steadily its bytes come;
     * positive. {@link TcpOptions#DEFAULT_FRAME_TIMEOUT} by default.
     */
    public Builder frameTimeout(Duration frameTimeout) {
      this.frameTimeout = OptionBounds.positive(frameTimeout, "frameTimeout");
      return this;
    }

    /** The most connections open at once; at least 1. */
    public Builder maxConnections(int maxConnections) {
      this.maxConnections = OptionBounds.atLeastOne(maxConnections, "maxConnections");
      return this;
    }

    /**
     * The most connections open at once from one remote address; at least 1. {@link
     * TcpOptions#DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} by default.
     */
    public Builder maxConnectionsPerAddress(int maxConnectionsPerAddress) {
      this.maxConnectionsPerAddress =
          OptionBounds.atLeastOne(maxConnectionsPerAddress, "maxConnectionsPerAddress");
      return this;
    }

    /** Requests in flight per connection before the server pauses reading it; at least 1. */
    public Builder maxInFlight(int maxInFlight) {
      this.maxInFlight = OptionBounds.atLeastOne(maxInFlight, "maxInFlight");
      return this;
    }

    /**
     * Posts one connection's page requests may ask for at once (each counts its size until its
     * reply has left the server) before the server pauses reading it; at least 1. A page request
     * larger than the bound runs alone. {@link TcpOptions#DEFAULT_MAX_POSTS_IN_FLIGHT} by default.
     */
    public Builder maxPostsInFlight(int maxPostsInFlight) {
      this.maxPostsInFlight = OptionBounds.atLeastOne(maxPostsInFlight, "maxPostsInFlight");
      return this;
    }

    /**
     * Most bytes of replies one connection may hold unsent, 64 KiB to 1 GiB; reading stops at half
     * of it. {@link TcpOptions#DEFAULT_MAX_UNSENT_BYTES} by default.
     */
    public Builder maxUnsentBytes(int maxUnsentBytes) {
      this.maxUnsentBytes = OptionBounds.unsentBytes(maxUnsentBytes, "maxUnsentBytes");
      return this;
    }

    /**
     * How long a written reply may wait to leave the server before its connection is closed;
     * positive. {@link TcpOptions#DEFAULT_WRITE_TIMEOUT} by default.
     */
    public Builder writeTimeout(Duration writeTimeout) {
      this.writeTimeout = OptionBounds.positive(writeTimeout, "writeTimeout");
      return this;
    }

    /**
     * Validates and builds.
     *
     * @throws IllegalArgumentException if a TLS port has no certificate (or both a certificate and
     *     self-signing are asked for), a certificate file is missing, or the read timeout is not
     *     shorter than the idle timeout
     */
    public TcpOptions build() {
      if (tlsPort != null && tlsCertificate == null && !tlsSelfSigned) {
        throw new IllegalArgumentException(
            "the TLS port needs a certificate and key"
                + " (--tls-cert and --tls-key) or a self-signed certificate (--tls-self-signed)");
      }
      if (tlsCertificate != null && tlsSelfSigned) {
        throw new IllegalArgumentException(
            "give either a certificate and key or" + " --tls-self-signed, not both");
      }
      if (tlsCertificate != null) {
        for (Path file : new Path[] {tlsCertificate, tlsPrivateKey}) {
          if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("cannot read TLS file " + file.toAbsolutePath());
          }
        }
      }
      if (readTimeout.compareTo(idleTimeout) > 0) {
        throw new IllegalArgumentException(
            "readTimeout (" + readTimeout + ") must not exceed idleTimeout (" + idleTimeout + ")");
      }
      return new TcpOptions(this);
    }

    private static Integer checkPort(Integer port, String name) {
      if (port != null && (port < 0 || port > 65535)) {
        throw new IllegalArgumentException(name + " must be from 0 to 65535, got " + port);
      }
      return port;
    }
  }
}
