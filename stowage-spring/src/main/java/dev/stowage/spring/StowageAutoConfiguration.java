package dev.stowage.spring;

import dev.stowage.Stowage;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.interceptor.CacheAspectSupport;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Makes a {@link Stowage} from Spring's {@code spring.data.redis.*} settings (URL, host, port,
 * username, password, database, sentinels, SSL and its bundle, timeouts, client name), on the
 * application's Lettuce {@link ClientResources} when it has them, and a {@link StowageCacheManager}
 * from {@code stowage.*}; turns caching on ({@link EnableCaching}) unless the application did. Each
 * backs off when the application defines a bean of its type ({@code Stowage}, {@code
 * CacheManager}). Runs after Spring Boot's Redis auto-configuration, whose connection details it
 * reads, and before its cache auto-configuration, which then backs off.
 */
@AutoConfiguration(
    after = DataRedisAutoConfiguration.class,
    beforeName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass({Stowage.class, CacheManager.class})
@EnableConfigurationProperties({StowageProperties.class, DataRedisProperties.class})
public class StowageAutoConfiguration {

  /**
   * The Stowage of {@code spring.data.redis.*}: the connection details Spring Boot derives from
   * them (a URL wins over host, port and the rest; sentinels over a single host; cluster nodes,
   * {@code spring.data.redis.cluster.nodes}, over both: Stowage then connects to the cluster with
   * its own topology refresh, and {@code spring.data.redis.lettuce.cluster.*} does not apply), SSL
   * when {@code spring.data.redis.ssl.enabled} is true or the URL is {@code rediss://}, with the
   * keys, trusted certificates, protocols and ciphers of the SSL bundle that {@code
   * spring.data.redis.ssl.bundle} names; {@code spring.data.redis.timeout} as the command timeout
   * (Stowage's 2 s, {@link Stowage#DEFAULT_COMMAND_TIMEOUT}, when it is not set), {@code
   * connect-timeout} as the connect timeout and {@code client-name} as the connection's name. It
   * starts while Redis cannot be reached unless {@code stowage.connect-in-background} is false.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  Stowage stowage(
      DataRedisProperties redis,
      ObjectProvider<DataRedisConnectionDetails> details,
      ObjectProvider<ClientResources> clientResources,
      StowageProperties properties) {
    DataRedisConnectionDetails connection = details.getIfAvailable();
    List<RedisURI> cluster = RedisUris.clusterSeeds(redis, connection);
    Stowage.Builder builder =
        cluster != null
            ? Stowage.builder().redisCluster(cluster)
            : Stowage.builder().redis(RedisUris.of(redis, connection));
    if (redis.getTimeout() != null) {
      builder.commandTimeout(redis.getTimeout());
    }
    if (redis.getConnectTimeout() != null) {
      builder.connectTimeout(redis.getConnectTimeout());
    }
    SslBundle bundle = connection != null ? connection.getSslBundle() : null;
    if (bundle != null) {
      builder.clientOptions(
          ClientOptions.builder().sslOptions(RedisUris.sslOptions(bundle)).build());
    }
    ClientResources resources = clientResources.getIfUnique();
    if (resources != null) {
      builder.clientResources(resources);
    }
    if (properties.isConnectInBackground()) {
      builder.connectInBackground();
    }
    return builder.build();
  }

  /**
   * The cache manager; caches without a type read back classes of the application's
   * auto-configuration packages (those of its {@code @SpringBootApplication}) and of {@code
   * stowage.allowed-packages}. Spring's {@code spring.cache.redis.*} apply where Stowage has the
   * same notion ({@link SpringCacheRedisSettings}); with {@code spring.cache.type} other than
   * {@code redis}, it backs off for the cache manager of that type that Spring Boot then makes.
   */
  @Bean
  @ConditionalOnMissingBean(CacheManager.class)
  @ConditionalOnProperty(
      prefix = "spring.cache",
      name = "type",
      havingValue = "redis",
      matchIfMissing = true)
  StowageCacheManager cacheManager(
      Stowage stowage,
      StowageProperties properties,
      BeanFactory beanFactory,
      Environment environment) {
    SpringCacheRedisSettings spring = SpringCacheRedisSettings.of(environment);
    spring.applyTo(properties);
    List<String> packages =
        AutoConfigurationPackages.has(beanFactory)
            ? AutoConfigurationPackages.get(beanFactory)
            : List.of();
    ClassLoader classLoader =
        beanFactory instanceof ConfigurableBeanFactory configurable
                && configurable.getBeanClassLoader() != null
            ? configurable.getBeanClassLoader()
            : StowageAutoConfiguration.class.getClassLoader();
    StowageCacheManager manager =
        new StowageCacheManager(stowage, properties, packages, classLoader);
    spring.applyTo(manager);
    return manager;
  }

  /** Caching on, for an application that did not turn it on itself. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(CacheAspectSupport.class)
  @EnableCaching
  static class CachingOn {}
}
