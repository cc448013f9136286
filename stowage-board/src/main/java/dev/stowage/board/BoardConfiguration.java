package dev.stowage.board;

import static java.util.Objects.requireNonNull;

import dev.stowage.Stowage;
import dev.stowage.board.events.BoardEventOptions;
import dev.stowage.board.events.BoardEvents;
import dev.stowage.board.tcp.BoardTcpServer;
import dev.stowage.board.tcp.TcpOptions;
import io.r2dbc.spi.ConnectionFactory;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Wires the service for the mode in {@code stowage.board.mode}, on the Redis in {@code
 * stowage.board.redis}: one server, or the nodes of a Redis Cluster with {@code
 * stowage.board.redis-cluster=true}; with {@code stowage.board.kafka.bootstrap-servers}, a Kafka
 * event for every created post through an outbox ({@code stowage.board.kafka.topic}, {@code
 * stowage.board.kafka.backlog-limit}). The database of record is {@code stowage.board.db}: an R2DBC
 * URL (in-memory H2 by default) or a MongoDB one ({@link MongoBoardStore}, selected by {@link
 * BoardDatabaseSelector}).
 */
@Configuration(proxyBeanMethods = false)
class BoardConfiguration implements WebFluxConfigurer {
  private static final Duration SCHEMA_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long a seed mode's score counter waits for the connection to come back after a restart of
   * Redis, as the seed's template, which queued commands meanwhile, did.
   */
  private static final Duration SEED_RECONNECTION_WAIT = Duration.ofSeconds(10);

  private final BoardFormats formats = new BoardFormats();

  /**
   * The service's own Reactor Netty event loops and connection pools instead of Reactor Netty's
   * global ones. Spring disposes its factory's resources when the context closes: with the global
   * ones, closing one service stopped the event loops of every other service in the same JVM (their
   * connections were refused, or closed in the middle of a response). The quiet period of the
   * loops' shutdown is Spring Boot's {@code spring.reactor.netty.shutdown-quiet-period}, which its
   * own factory, replaced by this one, would have read.
   */
  @Bean
  ReactorResourceFactory reactorResourceFactory(
      @Value("${spring.reactor.netty.shutdown-quiet-period:2s}") Duration shutdownQuietPeriod) {
    ReactorResourceFactory factory = new ReactorResourceFactory();
    factory.setUseGlobalResources(false);
    factory.setShutdownQuietPeriod(shutdownQuietPeriod);
    return factory;
  }

  @Bean
  BoardFormats boardFormats() {
    return formats;
  }

  @Bean
  BoardSettings boardSettings(
      @Value("${stowage.board.mode:stowage}") String mode,
      @Value("${stowage.board.redis:}") String redis,
      @Value("${stowage.board.redis-cluster:false}") boolean redisCluster,
      @Value("${stowage.board.compression:zstd-dict}") String compression,
      @Value("${stowage.board.db:${spring.r2dbc.url}}") String db,
      @Value("${stowage.board.near-cache:#{null}}") @Nullable Boolean nearCache,
      @Value("${stowage.board.kafka.bootstrap-servers:}") String kafka,
      @Value("${stowage.board.kafka.topic:" + BoardEventOptions.DEFAULT_TOPIC + "}") String topic,
      @Value("${stowage.board.kafka.backlog-limit:" + BoardEventOptions.DEFAULT_BACKLOG_LIMIT + "}")
          long backlogLimit,
      Environment environment) {
    if (redis.isBlank()) {
      throw new IllegalStateException(
          "no Redis given: set stowage.board.redis"
              + " (stowage serve --redis URL), such as redis://127.0.0.1:6390, or the nodes of a"
              + " Redis Cluster with stowage.board.redis-cluster=true (serve --redis-cluster URL,...)");
    }
    BoardMode boardMode = BoardMode.parse(mode);
    TcpOptions tcp = TcpProperties.read(environment);
    if (tcp != null && boardMode != BoardMode.STOWAGE) {
      throw new IllegalStateException(
          "the TCP endpoint serves stowage mode only, not "
              + boardMode.label()
              + "; drop the TCP port or use --mode stowage");
    }
    if (redisCluster) {
      refuseOnCluster(boardMode);
      clusterSeeds(redis);
    }
    // The near cache is on by default, on one server and on a cluster alike.
    boolean near = nearCache == null || nearCache;
    BoardEventOptions events =
        kafka.isBlank()
            ? null
            : BoardEventOptions.builder(kafka).topic(topic).backlogLimit(backlogLimit).build();
    return new BoardSettings(
        boardMode,
        redis,
        redisCluster,
        db,
        FeedCompression.parse(compression),
        tcp,
        HttpProperties.read(environment),
        near,
        events);
  }

  /**
   * Refuses what cannot run on a Redis Cluster: the seed modes.
   *
   * @throws IllegalStateException saying what to change
   */
  static void refuseOnCluster(BoardMode mode) {
    if (mode != BoardMode.STOWAGE) {
      throw new IllegalStateException(
          "the seed modes run on one Redis server only, not on a"
              + " Redis Cluster: "
              + mode.label()
              + " keeps the seed's single-server commands (a"
              + " ReactiveRedisTemplate on one connection, the sorted set and counter in two slots);"
              + " use --mode stowage on a cluster, or --redis URL for "
              + mode.label());
    }
  }

  /**
   * The seed URIs of a Redis Cluster, from {@code stowage.board.redis} holding them joined by
   * commas, such as {@code redis://10.0.0.1:6379,redis://10.0.0.2:6379}; blanks around each are
   * dropped. Core parses each when the service connects.
   *
   * @throws IllegalArgumentException if the list is empty or holds an empty entry
   */
  static List<String> clusterSeeds(String joined) {
    List<String> seeds = new ArrayList<>();
    for (String seed : joined.split(",", -1)) {
      if (seed.isBlank()) {
        throw new IllegalArgumentException(
            "the Redis Cluster's seed URIs are joined by commas, such"
                + " as redis://10.0.0.1:6379,redis://10.0.0.2:6379, with no empty one; got '"
                + joined
                + "'");
      }
      seeds.add(seed.strip());
    }
    return List.copyOf(seeds);
  }

  /** The HTTP API's connection limits and request read timeout, applied to Reactor Netty. */
  @Bean
  HttpServerLimits boardHttpLimits(BoardSettings settings) {
    return new HttpServerLimits(settings.http(), formats);
  }

  /**
   * The database of record, with events also their outbox: MongoDB for a {@code mongodb://} URL in
   * {@code stowage.board.db} (closed with the context, as Spring infers from its {@code close}),
   * else R2DBC's connection factory.
   */
  @Bean
  BoardStore boardStore(
      ObjectProvider<ConnectionFactory> connectionFactory, BoardSettings settings) {
    boolean events = settings.events() != null;
    BoardStore store;
    if (MongoBoardStore.isMongoUrl(settings.db())) {
      store = MongoBoardStore.connect(settings.db().strip(), events);
    } else {
      ConnectionFactory connections = connectionFactory.getObject();
      store =
          events
              ? BoardRepository.withOutbox(connections)
              : new BoardRepository(DatabaseClient.create(connections));
    }
    try {
      store.createSchema().block(SCHEMA_TIMEOUT);
    } catch (RuntimeException e) {
      if (store instanceof AutoCloseable closeable) {
        closeQuietly(closeable, e);
      }
      throw e;
    }
    return store;
  }

  private static void closeQuietly(AutoCloseable closeable, RuntimeException failure) {
    try {
      closeable.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * The events' relay when {@code stowage.board.kafka.bootstrap-servers} is set; else a
   * placeholder.
   */
  @Bean(destroyMethod = "close")
  EventRelay boardEvents(BoardSettings settings, BoardStore repository) {
    BoardEventOptions options = settings.events();
    return new EventRelay(
        options == null
            ? null
            : BoardEvents.start(repository, repository.gate(), options, formats::toJson));
  }

  /** Holds the relay, or null when there are no events. */
  record EventRelay(@Nullable BoardEvents events) implements AutoCloseable {
    @Override
    public void close() {
      if (events != null) {
        events.close();
      }
    }
  }

  @Bean(destroyMethod = "close")
  BoardHandlerHolder boardHandler(BoardSettings settings, BoardStore repository) {
    if (settings.mode() == BoardMode.STOWAGE) {
      StowageBoardService service =
          settings.redisCluster()
              ? StowageBoardService.onCluster(
                  clusterSeeds(settings.redis()),
                  repository,
                  formats,
                  settings.compression(),
                  settings.nearCache())
              : new StowageBoardService(
                  settings.redis(),
                  repository,
                  formats,
                  settings.compression(),
                  settings.nearCache());
      Mono<Void> ping =
          Mono.fromCallable(service::pingRedis).subscribeOn(Schedulers.boundedElastic()).then();
      return new BoardHandlerHolder(
          new StowageBoardHandler(service, formats),
          service,
          service,
          ping,
          service.redisAddress());
    }
    LettuceConnectionFactory connections = seedConnectionFactory(settings.redis());
    Mono<Void> ping =
        Mono.usingWhen(
            // A lambda, not a method reference: the method returns a class of Spring Data Redis
            // that
            // is not public, and a method reference's bootstrap refuses to link to it.
            Mono.<ReactiveRedisConnection>fromSupplier(() -> connections.getReactiveConnection()),
            connection -> connection.ping().then(),
            ReactiveRedisConnection::closeLater);
    // The seed's counter through core's feed scripts: a feed built for its counter alone.
    Stowage counterConnection =
        Stowage.builder()
            .redis(settings.redis())
            .commandTimeout(StowageBoardService.COMMAND_TIMEOUT)
            .connectInBackground()
            .build();
    BoardScores.Counter counter =
        BoardScores.Counter.waitingForReconnection(
            BoardScores.Counter.of(
                counterConnection
                    .feed(BoardKeys.FEED, byte[].class)
                    .counter(BoardKeys.COUNTER, BoardKeys.COUNTER_FIELD)
                    .build()
                    .async(),
                BoardKeys.COUNTER + "/" + BoardKeys.COUNTER_FIELD),
            SEED_RECONNECTION_WAIT);
    return new BoardHandlerHolder(
        new SeedBoardHandler(settings.mode(), connections, repository, formats, counter),
        null,
        () -> {
          try (counterConnection) {
            connections.destroy();
          }
        },
        ping,
        settings.redis());
  }

  /**
   * The {@code redis} component of {@code /actuator/health}: {@code DEGRADED} in stowage mode when
   * Redis does not answer (the service serves from the database), {@code DOWN} in the seed modes.
   */
  @Bean
  ReactiveHealthIndicator redisHealthIndicator(BoardHandlerHolder holder, BoardSettings settings) {
    return BoardHealth.redis(
        holder.redisAddress(),
        holder.redisPing(),
        settings.mode() == BoardMode.STOWAGE,
        BoardHealth.REDIS_TIMEOUT);
  }

  /**
   * The {@code database} component of {@code /actuator/health} on MongoDB (on a relational
   * database, {@link BoardDatabaseConfiguration} gives it): a {@code ping} within {@code
   * stowage.board.db-watchdog.probe-timeout}.
   */
  @Bean
  @ConditionalOnExpression(
      "T(dev.stowage.board.MongoBoardStore).isMongoUrl('${stowage.board.db:}')")
  ReactiveHealthIndicator databaseHealthIndicator(
      BoardStore store,
      @Value("${stowage.board.db-watchdog.probe-timeout:2s}") Duration probeTimeout) {
    return BoardHealth.mongo((MongoBoardStore) store, probeTimeout);
  }

  /** The {@code events} component of {@code /actuator/health}, when events are on. */
  @Bean
  @ConditionalOnExpression("!'${stowage.board.kafka.bootstrap-servers:}'.isBlank()")
  ReactiveHealthIndicator eventsHealthIndicator(EventRelay relay) {
    return BoardHealth.events(requireNonNull(relay.events(), "the events' relay"));
  }

  /**
   * What Spring Boot's Redis auto-configuration builds from a URL ({@code
   * redis://[[user]:password@]host[:port][/database]}), as the seed's service had.
   */
  static LettuceConnectionFactory seedConnectionFactory(String uri) {
    URI parsed;
    try {
      parsed = new URI(uri);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "not a Redis URI: " + uri + " (" + e.getMessage() + ")", e);
    }
    if (!"redis".equals(parsed.getScheme()) || parsed.getHost() == null) {
      throw new IllegalArgumentException(
          "the seed modes take redis://host:port[/database], not " + uri);
    }
    // Spring's configuration starts on Redis's default port, kept when the URI names none.
    RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration();
    standalone.setHostName(parsed.getHost());
    if (parsed.getPort() >= 0) {
      standalone.setPort(parsed.getPort());
    }
    String path = parsed.getPath() == null ? "" : parsed.getPath().replaceFirst("^/", "");
    if (!path.isEmpty()) {
      try {
        standalone.setDatabase(Integer.parseInt(path));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "the database in " + uri + " must be a number from 0, not '" + path + "'", e);
      }
    }
    String userInfo = parsed.getUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      if (colon < 0) {
        standalone.setPassword(userInfo);
      } else {
        if (colon > 0) {
          standalone.setUsername(userInfo.substring(0, colon));
        }
        standalone.setPassword(userInfo.substring(colon + 1));
      }
    }
    LettuceConnectionFactory factory = new LettuceConnectionFactory(standalone);
    factory.afterPropertiesSet();
    factory.start();
    return factory;
  }

  /** The TCP endpoint beside the HTTP API, when a TCP port is configured; else a placeholder. */
  @Bean(destroyMethod = "close")
  TcpEndpoint boardTcpEndpoint(BoardSettings settings, BoardHandlerHolder holder) {
    if (settings.tcp() == null) {
      return new TcpEndpoint(null);
    }
    return new TcpEndpoint(
        BoardTcpServer.start(
            settings.tcp(),
            // Settings accept a TCP port in the stowage mode only, which has the service.
            requireNonNull(holder.stowage(), "stowage"),
            formats));
  }

  /** Holds the TCP server, or null when none runs. */
  record TcpEndpoint(@Nullable BoardTcpServer server) implements AutoCloseable {
    @Override
    public void close() {
      if (server != null) {
        server.close();
      }
    }
  }

  @Bean
  RouterFunction<ServerResponse> boardRoutes(BoardHandlerHolder holder) {
    BoardHandler handler = holder.handler();
    return RouterFunctions.route()
        .POST("/boards/bulk", handler::createAll)
        .POST("/boards", handler::create)
        .GET("/boards", handler::page)
        .GET("/boards/{id}", handler::get)
        // HEAD wherever GET: the same answer's status and headers; Spring drops the body.
        .HEAD("/boards", handler::page)
        .HEAD("/boards/{id}", handler::get)
        .build();
  }

  @Bean
  BoardErrorHandler boardErrorHandler() {
    return new BoardErrorHandler(formats);
  }

  @Override
  public void configureHttpMessageCodecs(ServerCodecConfigurer configurer) {
    configurer.customCodecs().register(new MsgpackEncoder(formats.msgpack()));
  }

  /**
   * The mode's handler, with what must be closed at shutdown, and a {@code PING} of its Redis (for
   * the health endpoint) that completes when Redis answers.
   */
  record BoardHandlerHolder(
      BoardHandler handler,
      @Nullable StowageBoardService stowage,
      AutoCloseable resources,
      Mono<Void> redisPing,
      String redisAddress)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      resources.close();
    }
  }
}
