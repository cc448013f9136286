package dev.stowage.spring;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.cache.metrics.CacheMeterBinderProvider;

/**
 * Lets Spring Boot's cache metrics bind {@link StowageCache}s, with {@link StowageCacheMetrics}:
 * Boot binds the caches a cache manager has when the application starts, and {@link
 * StowageMetricsAutoConfiguration} binds the ones made later through Boot's {@link
 * org.springframework.boot.cache.metrics.CacheMetricsRegistrar}.
 */
public class StowageCacheMeterBinderProvider implements CacheMeterBinderProvider<StowageCache> {
  @Override
  public MeterBinder getMeterBinder(StowageCache cache, Iterable<Tag> tags) {
    return new StowageCacheMetrics(cache, tags);
  }
}
