package dev.stowage.board;

import dev.stowage.board.events.BoardEventOptions;
import dev.stowage.board.events.BoardEvents;
import dev.stowage.board.tcp.BoardTcpServer;
import dev.stowage.board.tcp.TcpOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A running board service, started in this JVM.
 *
 * <pre>{@code
 * try (BoardServer board = BoardServer.start(0, redis.uri(), null, BoardMode.STOWAGE)) {
 *   System.out.println(board.url());   // http://127.0.0.1:41234
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class BoardServer implements AutoCloseable {
  private final ConfigurableApplicationContext context;
  private final int port;
  private final BoardSettings settings;
  private final @Nullable BoardTcpServer tcp;
  private final HttpServerLimits httpLimits;
  private final @Nullable BoardEvents events;

  private BoardServer(ConfigurableApplicationContext context) {
    this.context = context;
    this.port =
        Objects.requireNonNull(
                ((WebServerApplicationContext) context).getWebServer(), "the board's web server")
            .getPort();
    this.settings = context.getBean(BoardSettings.class);
    this.tcp = context.getBean(BoardConfiguration.TcpEndpoint.class).server();
    this.httpLimits = context.getBean(HttpServerLimits.class);
    this.events = context.getBean(BoardConfiguration.EventRelay.class).events();
  }

  /**
   * Starts the service.
   *
   * @param port the HTTP port, or 0 for an ephemeral one
   * @param redisUri Redis, such as {@code redis://127.0.0.1:6390}; not null
   * @param dbUrl the database of record: an R2DBC URL (H2, PostgreSQL) or a MongoDB one ({@code
   *     mongodb://host:port/database}, see {@link MongoBoardStore}), or null for an in-memory H2
   * @param mode the read/write path; not null
   * @throws RuntimeException if the service cannot start (Redis or the database unreachable, the
   *     port taken)
   */
  public static BoardServer start(int port, String redisUri, String dbUrl, BoardMode mode) {
    return start(port, redisUri, dbUrl, mode, FeedCompression.ZSTD_DICT);
  }

  /**
   * Starts the service, with stowage mode's feed compressed as {@code compression} says.
   *
   * @see #start(int, String, String, BoardMode)
   */
  public static BoardServer start(
      int port, String redisUri, String dbUrl, BoardMode mode, FeedCompression compression) {
    return start(port, redisUri, dbUrl, mode, compression, null);
  }

  /**
   * Starts the service with a TCP endpoint beside the HTTP API (stowage mode only).
   *
   * @param tcp the TCP endpoint's ports and limits, or null for HTTP only
   * @throws IllegalStateException if {@code tcp} is given with a seed mode
   * @see #start(int, String, String, BoardMode)
   */
  public static BoardServer start(
      int port,
      String redisUri,
      String dbUrl,
      BoardMode mode,
      FeedCompression compression,
      @Nullable TcpOptions tcp) {
    return start(port, redisUri, dbUrl, mode, compression, tcp, true);
  }

  /**
   * Starts the service, choosing whether stowage mode keeps pages in the process ({@code
   * stowage.board.near-cache}, on by default).
   *
   * @see #start(int, String, String, BoardMode, FeedCompression, TcpOptions)
   */
  public static BoardServer start(
      int port,
      String redisUri,
      String dbUrl,
      BoardMode mode,
      FeedCompression compression,
      @Nullable TcpOptions tcp,
      boolean nearCache) {
    return start(port, redisUri, dbUrl, mode, compression, tcp, HttpOptions.defaults(), nearCache);
  }

  /**
   * Starts the service with the HTTP API's connection limits.
   *
   * @param http the HTTP connections' idle timeout, request read timeout and maximum; not null
   * @see #start(int, String, String, BoardMode, FeedCompression, TcpOptions, boolean)
   */
  public static BoardServer start(
      int port,
      String redisUri,
      String dbUrl,
      BoardMode mode,
      FeedCompression compression,
      @Nullable TcpOptions tcp,
      HttpOptions http,
      boolean nearCache) {
    return start(port, redisUri, dbUrl, mode, compression, tcp, http, nearCache, null);
  }

  /**
   * Starts the service with a Kafka event for every created post ({@link BoardEvents}), or none.
   *
   * <pre>{@code
   * try (BoardServer board = BoardServer.start(0, redis.uri(), null, BoardMode.STOWAGE,
   *     FeedCompression.ZSTD_DICT, null, HttpOptions.defaults(), true,
   *     BoardEventOptions.builder("127.0.0.1:9092").build())) {
   *   board.events().status().pending();
   * }
   * }</pre>
   *
   * @param events the broker, topic and backlog limit, or null for no events
   * @see #start(int, String, String, BoardMode, FeedCompression, TcpOptions, HttpOptions, boolean)
   */
  public static BoardServer start(
      int port,
      String redisUri,
      @Nullable String dbUrl,
      BoardMode mode,
      FeedCompression compression,
      @Nullable TcpOptions tcp,
      HttpOptions http,
      boolean nearCache,
      @Nullable BoardEventOptions events) {
    Objects.requireNonNull(redisUri, "redisUri");
    Objects.requireNonNull(mode, "mode");
    Map<String, Object> properties = properties(port, dbUrl, compression, tcp, http, events);
    properties.put("stowage.board.redis", redisUri);
    properties.put("stowage.board.mode", mode.label());
    properties.put("stowage.board.near-cache", nearCache);
    return run(properties);
  }

  /**
   * Starts the service with Spring properties of its own besides (such as {@code
   * spring.r2dbc.pool.max-size} or {@code stowage.board.db-watchdog.*}), which win over those of
   * {@code application.properties}: for tests.
   *
   * @see #start(int, String, String, BoardMode)
   */
  static BoardServer start(
      int port,
      String redisUri,
      @Nullable String dbUrl,
      BoardMode mode,
      Map<String, ?> extraProperties) {
    Objects.requireNonNull(redisUri, "redisUri");
    Objects.requireNonNull(mode, "mode");
    Map<String, Object> properties =
        properties(port, dbUrl, FeedCompression.ZSTD_DICT, null, HttpOptions.defaults(), null);
    properties.put("stowage.board.redis", redisUri);
    properties.put("stowage.board.mode", mode.label());
    // As command-line arguments, which win over application.properties (the others are defaults).
    String[] args =
        extraProperties.entrySet().stream()
            .map(property -> "--" + property.getKey() + "=" + property.getValue())
            .toArray(String[]::new);
    return new BoardServer(
        new SpringApplicationBuilder(BoardApplication.class).properties(properties).run(args));
  }

  /**
   * Starts the service in stowage mode on a Redis Cluster, reached through {@code seeds} (any of
   * its nodes): the feed, its counter and its mark share the hash tag {@code {board}} (see {@link
   * BoardKeys}), and with {@code nearCache} pages are kept in memory, as on one server. The seed
   * modes run on one server only.
   *
   * <pre>{@code
   * try (BoardServer board = BoardServer.startOnCluster(0, cluster.uris(), null,
   *     FeedCompression.ZSTD_DICT, null, HttpOptions.defaults(), true)) { ... }
   * }</pre>
   *
   * @param seeds URIs of the cluster's nodes, such as {@code redis://10.0.0.1:6379}; not empty
   * @throws IllegalArgumentException if {@code seeds} is empty or holds a blank URI or one with a
   *     comma
   * @see #start(int, String, String, BoardMode, FeedCompression, TcpOptions, HttpOptions, boolean)
   */
  public static BoardServer startOnCluster(
      int port,
      List<String> seeds,
      @Nullable String dbUrl,
      FeedCompression compression,
      @Nullable TcpOptions tcp,
      HttpOptions http,
      boolean nearCache) {
    return startOnCluster(port, seeds, dbUrl, compression, tcp, http, nearCache, null);
  }

  /**
   * Starts the service on a Redis Cluster with a Kafka event for every created post, or none.
   *
   * @param events the broker, topic and backlog limit, or null for no events
   * @see #startOnCluster(int, List, String, FeedCompression, TcpOptions, HttpOptions, boolean)
   */
  public static BoardServer startOnCluster(
      int port,
      List<String> seeds,
      @Nullable String dbUrl,
      FeedCompression compression,
      @Nullable TcpOptions tcp,
      HttpOptions http,
      boolean nearCache,
      @Nullable BoardEventOptions events) {
    Objects.requireNonNull(seeds, "seeds");
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException(
          "a Redis Cluster needs at least one seed URI, such as" + " redis://10.0.0.1:6379");
    }
    for (String seed : seeds) {
      if (seed == null || seed.isBlank() || seed.contains(",")) {
        throw new IllegalArgumentException(
            "a seed is the URI of one node, such as"
                + " redis://10.0.0.1:6379, not '"
                + seed
                + "'");
      }
    }
    Map<String, Object> properties = properties(port, dbUrl, compression, tcp, http, events);
    properties.put("stowage.board.redis", String.join(",", seeds));
    properties.put("stowage.board.redis-cluster", true);
    properties.put("stowage.board.mode", BoardMode.STOWAGE.label());
    properties.put("stowage.board.near-cache", nearCache);
    return run(properties);
  }

  /** The properties every mode and topology shares. */
  private static Map<String, Object> properties(
      int port,
      @Nullable String dbUrl,
      FeedCompression compression,
      @Nullable TcpOptions tcp,
      HttpOptions http,
      @Nullable BoardEventOptions events) {
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(compression, "compression");
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("server.port", port);
    properties.put("server.address", "127.0.0.1");
    properties.put("stowage.board.compression", compression.label());
    if (dbUrl != null) {
      properties.put("stowage.board.db", dbUrl);
    }
    if (tcp != null && tcp.enabled()) {
      properties.putAll(TcpProperties.of(tcp));
    }
    properties.putAll(HttpProperties.of(http));
    if (events != null) {
      properties.put("stowage.board.kafka.bootstrap-servers", events.bootstrapServers());
      properties.put("stowage.board.kafka.topic", events.topic());
      properties.put("stowage.board.kafka.backlog-limit", events.backlogLimit());
    }
    return properties;
  }

  private static BoardServer run(Map<String, Object> properties) {
    return new BoardServer(
        new SpringApplicationBuilder(BoardApplication.class)
            .initializers(new BoardDatabaseSelector())
            .properties(properties)
            .run());
  }

  /** The port it listens on. */
  public int port() {
    return port;
  }

  /** {@code http://127.0.0.1:port}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** The TCP endpoint, or null when the service was started without one. */
  public @Nullable BoardTcpServer tcp() {
    return tcp;
  }

  /** HTTP connections open now, not counting those being turned away. */
  public int httpConnections() {
    return httpLimits.connections();
  }

  /** The HTTP API's connection limits, and what they have counted, for tests. */
  HttpServerLimits httpLimits() {
    return httpLimits;
  }

  /** The service's bean of {@code type}: for tests. */
  <T> T bean(Class<T> type) {
    return context.getBean(type);
  }

  /**
   * The relay of the posts' events, whose {@link BoardEvents#status()} says how far behind it is;
   * null without events.
   */
  public @Nullable BoardEvents events() {
    return events;
  }

  /** What it was started with. */
  public BoardSettings settings() {
    return settings;
  }

  /** Stops the service. */
  @Override
  public void close() {
    context.close();
  }
}
