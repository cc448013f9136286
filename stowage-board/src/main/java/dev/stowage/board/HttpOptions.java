package dev.stowage.board;

import java.time.Duration;

/**
 * The limits that protect the HTTP API's connections: how long a connection may wait for a request,
 * how long a request may take to arrive, how many connections are kept, and how long and how much a
 * response may wait for a client that does not read it. Immutable; built by {@link #builder()},
 * validated as each value is set.
 *
 * <pre>{@code
 * HttpOptions http = HttpOptions.builder().idleTimeout(Duration.ofSeconds(30))
 *     .maxConnections(1024).build();
 * }</pre>
 */
public final class HttpOptions {
  /**
   * A connection waiting this long for a request (a new connection, or a kept-alive one after its
   * last response) is closed: 60 s. Reactor Netty's idle timeout, Spring Boot's {@code
   * server.netty.idle-timeout}.
   */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * A request whose headers and body have not all arrived this long after its first byte is
   * answered 408 and its connection closed, however steadily its bytes trickle in: 30 s.
   */
  public static final Duration DEFAULT_REQUEST_READ_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Most connections kept: 4,096. A connection beyond them closes the longest idle one (waiting for
   * its next request) to make room, or, when no connection is idle, is answered 503 and closed at
   * once.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 4096;

  /**
   * Most connections kept from one remote address; each one beyond is answered 503 and closed at
   * once, so that one address cannot take every connection: 256.
   */
  public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;

  /**
   * A connection whose response (any write of it) has not left the server this long after it was
   * written, its client not reading, is closed at once and the response released: 30 s.
   */
  public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The write-buffer watermarks of each connection: once half of this is written and not yet taken
   * by the operating system, the server reads nothing more from the connection until it drains to a
   * quarter: 16 MiB. A connection holds at most one response unsent in any case (the next request
   * is not passed on until the response before has left the server), so this bounds only how soon
   * reading stops within one large response.
   */
  public static final int DEFAULT_MAX_UNSENT_BYTES = 16 * 1024 * 1024;

  private static final HttpOptions DEFAULTS = builder().build();

  private final Duration idleTimeout;
  private final Duration requestReadTimeout;
  private final int maxConnections;
  private final int maxConnectionsPerAddress;
  private final Duration writeTimeout;
  private final int maxUnsentBytes;

  private HttpOptions(Builder b) {
    this.idleTimeout = b.idleTimeout;
    this.requestReadTimeout = b.requestReadTimeout;
    this.maxConnections = b.maxConnections;
    this.maxConnectionsPerAddress = b.maxConnectionsPerAddress;
    this.writeTimeout = b.writeTimeout;
    this.maxUnsentBytes = b.maxUnsentBytes;
  }

  /** The defaults. */
  public static HttpOptions defaults() {
    return DEFAULTS;
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** How long a connection may wait for a request. */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** How long a request's headers and body may take to arrive, from its first byte. */
  public Duration requestReadTimeout() {
    return requestReadTimeout;
  }

  /** The most connections kept at once. */
  public int maxConnections() {
    return maxConnections;
  }

  /** The most connections kept at once from one remote address. */
  public int maxConnectionsPerAddress() {
    return maxConnectionsPerAddress;
  }

  /** How long a written response may wait to leave the server before its connection is closed. */
  public Duration writeTimeout() {
    return writeTimeout;
  }

  /**
   * The bytes unsent at half of which a connection is not read; see {@link
   * #DEFAULT_MAX_UNSENT_BYTES}.
   */
  public int maxUnsentBytes() {
    return maxUnsentBytes;
  }

  /** A builder holding these options, to change some of them. */
  public Builder mutate() {
    return new Builder()
        .idleTimeout(idleTimeout)
        .requestReadTimeout(requestReadTimeout)
        .maxConnections(maxConnections)
        .maxConnectionsPerAddress(maxConnectionsPerAddress)
        .writeTimeout(writeTimeout)
        .maxUnsentBytes(maxUnsentBytes);
  }

  @Override
  public String toString() {
    return "HttpOptions{idleTimeout="
        + idleTimeout
        + ", requestReadTimeout="
        + requestReadTimeout
        + ", maxConnections="
        + maxConnections
        + ", maxConnectionsPerAddress="
        + maxConnectionsPerAddress
        + ", writeTimeout="
        + writeTimeout
        + ", maxUnsentBytes="
        + maxUnsentBytes
        + "}";
  }

  /** Builds {@link HttpOptions}; not thread-safe. */
  public static final class Builder {
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private Duration requestReadTimeout = DEFAULT_REQUEST_READ_TIMEOUT;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
    private Duration writeTimeout = DEFAULT_WRITE_TIMEOUT;
    private int maxUnsentBytes = DEFAULT_MAX_UNSENT_BYTES;

    private Builder() {}

    /** How long a connection may wait for a request; positive. */
    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = OptionBounds.positive(idleTimeout, "idleTimeout");
      return this;
    }

    /** How long a request's headers and body may take to arrive from its first byte; positive. */
    public Builder requestReadTimeout(Duration requestReadTimeout) {
      this.requestReadTimeout = OptionBounds.positive(requestReadTimeout, "requestReadTimeout");
      return this;
    }

    /** The most connections kept at once; at least 1. */
    public Builder maxConnections(int maxConnections) {
      this.maxConnections = OptionBounds.atLeastOne(maxConnections, "maxConnections");
      return this;
    }

    /**
     * The most connections kept at once from one remote address; at least 1. {@link
     * HttpOptions#DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} by default.
     */
    public Builder maxConnectionsPerAddress(int maxConnectionsPerAddress) {
      this.maxConnectionsPerAddress =
          OptionBounds.atLeastOne(maxConnectionsPerAddress, "maxConnectionsPerAddress");
      return this;
    }

    /**
     * How long a written response may wait to leave the server before its connection is closed;
     * positive. {@link HttpOptions#DEFAULT_WRITE_TIMEOUT} by default.
     */
    public Builder writeTimeout(Duration writeTimeout) {
      this.writeTimeout = OptionBounds.positive(writeTimeout, "writeTimeout");
      return this;
    }

    /**
     * The bytes unsent at half of which a connection is not read, 64 KiB to 1 GiB. {@link
     * HttpOptions#DEFAULT_MAX_UNSENT_BYTES} by default.
     */
    public Builder maxUnsentBytes(int maxUnsentBytes) {
      this.maxUnsentBytes = OptionBounds.unsentBytes(maxUnsentBytes, "maxUnsentBytes");
      return this;
    }

    /** The options. */
    public HttpOptions build() {
      return new HttpOptions(this);
    }
  }
}
