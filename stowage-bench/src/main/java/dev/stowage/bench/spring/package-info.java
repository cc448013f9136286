/**
 * Issue 15's benchmark ({@code stowage bench spring}): an {@code @Cacheable} method's hits and
 * misses under many concurrent callers, in Spring Boot applications, through Spring's {@code
 * RedisCacheManager} with {@code GenericJackson2JsonRedisSerializer} and through Stowage's {@code
 * StowageCacheManager}; requests per second, latency and Redis memory per cached record.
 */
package dev.stowage.bench.spring;
