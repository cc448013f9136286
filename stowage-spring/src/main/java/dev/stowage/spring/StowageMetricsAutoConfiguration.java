package dev.stowage.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.cache.metrics.CacheMeterBinderProvider;
import org.springframework.boot.cache.metrics.CacheMetricsRegistrar;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for Stowage's caches, through Spring Boot's cache metrics: a {@link
 * StowageCacheMeterBinderProvider}, with which Boot binds the caches under {@code stowage.caches}
 * when the application starts, and the binding of the caches made later, on first use, as they are
 * made (Boot binds only the caches a manager has at start). Each cache gets the meters {@link
 * StowageCacheMetrics} lists, tagged {@code cache} and {@code cache.manager} as Boot tags its
 * others. Configured when Micrometer and Boot's cache metrics ({@code spring-boot-cache}) are on
 * the classpath and a {@link StowageCacheManager} is a bean; a registry comes from Boot's metrics
 * auto-configuration ({@code spring-boot-micrometer-metrics}, which the actuator starter brings).
 */
@AutoConfiguration(
    after = StowageAutoConfiguration.class,
    afterName =
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    beforeName =
        "org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration")
@ConditionalOnClass({MeterRegistry.class, CacheMeterBinderProvider.class})
@ConditionalOnBean(StowageCacheManager.class)
public class StowageMetricsAutoConfiguration {
  /** What Boot's cache manager tag strips from a cache manager's bean name, as Boot does. */
  private static final String CACHE_MANAGER_SUFFIX = "cacheManager";

  /** Lets Boot's cache metrics bind {@link StowageCache}s. */
  @Bean
  StowageCacheMeterBinderProvider stowageCacheMeterBinderProvider() {
    return new StowageCacheMeterBinderProvider();
  }

  /**
   * Binds the caches each Stowage cache manager makes after Boot bound the ones it had: those made
   * while the application started (which have no meters yet), then each one as it is made.
   */
  @Bean
  SmartInitializingSingleton stowageLateCacheMetrics(
      ListableBeanFactory beanFactory,
      ObjectProvider<CacheMetricsRegistrar> registrar,
      ObjectProvider<MeterRegistry> registry) {
    return () -> {
      CacheMetricsRegistrar metrics = registrar.getIfUnique();
      MeterRegistry meters = registry.getIfUnique();
      if (metrics == null || meters == null) {
        return;
      }
      Map<String, StowageCacheManager> managers =
          beanFactory.getBeansOfType(StowageCacheManager.class);
      managers.forEach(
          (beanName, manager) -> {
            Tag managerTag = Tag.of("cache.manager", managerName(beanName));
            manager.onCacheMade(cache -> metrics.bindCacheToRegistry(cache, managerTag));
            for (StowageCache cache : manager.caches()) {
              if (meters
                      .find("cache.puts")
                      .tag("cache", cache.getName())
                      .tags(List.of(managerTag))
                      .meter()
                  == null) {
                metrics.bindCacheToRegistry(cache, managerTag);
              }
            }
          });
    };
  }

  /** The cache manager tag's value for a bean, as Boot's cache metrics name it. */
  static String managerName(String beanName) {
    if (beanName.length() > CACHE_MANAGER_SUFFIX.length()
        && beanName.regionMatches(
            true,
            beanName.length() - CACHE_MANAGER_SUFFIX.length(),
            CACHE_MANAGER_SUFFIX,
            0,
            CACHE_MANAGER_SUFFIX.length())) {
      return beanName.substring(0, beanName.length() - CACHE_MANAGER_SUFFIX.length());
    }
    return beanName;
  }
}
