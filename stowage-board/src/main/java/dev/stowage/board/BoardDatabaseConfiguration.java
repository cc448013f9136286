package dev.stowage.board;

import static java.util.Objects.requireNonNull;

import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.r2dbc.ConnectionFactoryBuilder;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The database of record's connections: a pool built from Spring Boot's {@code spring.r2dbc.*}
 * properties (the URL, credentials, options and every {@code spring.r2dbc.pool.*} setting), which
 * {@link PoolWatchdog} replaces when it stops handing out connections while the database answers.
 * Being a {@code ConnectionFactory} bean, it makes Boot's own pool configuration back off. Only for
 * a relational database: with MongoDB, {@link MongoBoardStore} holds the driver's own pool.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(RelationalDatabase.class)
@EnableConfigurationProperties(R2dbcProperties.class)
class BoardDatabaseConfiguration {

  /** The pool, replaceable; every other bean reaches the database through it. */
  @Bean(destroyMethod = "close")
  RecoveringConnectionFactory connectionFactory(R2dbcProperties properties) {
    ConnectionFactoryBuilder builder =
        ConnectionFactoryBuilder.withUrl(
            requireNonNull(
                properties.getUrl(),
                "no database URL: set spring.r2dbc.url (stowage serve --db URL)"));
    if (properties.getUsername() != null) {
      builder.username(properties.getUsername());
    }
    if (properties.getPassword() != null) {
      builder.password(properties.getPassword());
    }
    properties
        .getProperties()
        .forEach(
            (name, value) ->
                builder.configure(options -> options.option(Option.valueOf(name), value)));
    ConnectionFactory database = builder.build();
    R2dbcProperties.Pool pool = properties.getPool();
    return new RecoveringConnectionFactory(
        database, () -> new ConnectionPool(poolConfiguration(database, pool)));
  }

  /** r2dbc-pool's configuration for {@code spring.r2dbc.pool.*}, each setting given kept. */
  static ConnectionPoolConfiguration poolConfiguration(
      ConnectionFactory database, R2dbcProperties.Pool pool) {
    ConnectionPoolConfiguration.Builder builder =
        ConnectionPoolConfiguration.builder(database)
            .initialSize(pool.getInitialSize())
            .maxSize(pool.getMaxSize())
            .minIdle(pool.getMinIdle())
            .acquireRetry(pool.getAcquireRetry())
            .validationDepth(pool.getValidationDepth());
    ifSet(pool.getMaxIdleTime(), builder::maxIdleTime);
    ifSet(pool.getMaxLifeTime(), builder::maxLifeTime);
    ifSet(pool.getMaxAcquireTime(), builder::maxAcquireTime);
    ifSet(pool.getMaxValidationTime(), builder::maxValidationTime);
    ifSet(pool.getMaxCreateConnectionTime(), builder::maxCreateConnectionTime);
    ifSet(pool.getValidationQuery(), builder::validationQuery);
    return builder.build();
  }

  private static <T> void ifSet(@Nullable T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  /**
   * The watchdog over the pool. Its timings: {@code stowage.board.db-watchdog.interval} (5 s),
   * {@code .probe-timeout} (2 s, also the health check's bound) and {@code .replace-after} (twice
   * {@code spring.r2dbc.pool.max-acquire-time}, 20 s when that is not set).
   */
  @Bean(destroyMethod = "close")
  PoolWatchdog boardPoolWatchdog(
      RecoveringConnectionFactory connections,
      R2dbcProperties properties,
      @Value("${stowage.board.db-watchdog.interval:5s}") Duration interval,
      @Value("${stowage.board.db-watchdog.probe-timeout:2s}") Duration probeTimeout,
      @Value("${stowage.board.db-watchdog.replace-after:#{null}}")
          @Nullable Duration replaceAfter) {
    Duration maxAcquire = properties.getPool().getMaxAcquireTime();
    Duration after =
        replaceAfter != null
            ? replaceAfter
            : maxAcquire != null ? maxAcquire.multipliedBy(2) : Duration.ofSeconds(20);
    return new PoolWatchdog(connections, interval, probeTimeout, after);
  }

  /**
   * The {@code database} component of {@code /actuator/health}: a connection from the pool and
   * {@value RecoveringConnectionFactory#VALIDATION_QUERY}, within {@code
   * stowage.board.db-watchdog.probe-timeout}, so that it answers in time however stuck the pool.
   */
  @Bean
  ReactiveHealthIndicator databaseHealthIndicator(
      RecoveringConnectionFactory connections,
      PoolWatchdog watchdog,
      @Value("${stowage.board.db-watchdog.probe-timeout:2s}") Duration probeTimeout) {
    return BoardHealth.database(connections, watchdog, probeTimeout);
  }
}
