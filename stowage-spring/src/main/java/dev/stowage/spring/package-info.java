/**
 * Stowage in Spring Boot: {@link dev.stowage.spring.StowageAutoConfiguration} makes a {@link
 * dev.stowage.Stowage} from {@code spring.data.redis.*} and a {@link
 * dev.stowage.spring.StowageCacheManager} from {@code stowage.*}, whose {@link
 * dev.stowage.spring.StowageCache}s serve {@code @Cacheable} and the other cache annotations;
 * {@link dev.stowage.spring.StowageRedisSerializer} writes and reads envelopes for a {@code
 * RedisTemplate} or {@code ReactiveRedisTemplate}.
 */
@NullMarked
package dev.stowage.spring;

import org.jspecify.annotations.NullMarked;
