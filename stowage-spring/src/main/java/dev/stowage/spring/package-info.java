/**
 * Stowage in Spring Boot: {@link dev.stowage.spring.StowageAutoConfiguration} makes a
 * {@link dev.stowage.Stowage} from {@code spring.data.redis.*} and a
 * {@link dev.stowage.spring.StowageCacheManager} from {@code stowage.*}, whose
 * {@link dev.stowage.spring.StowageCache}s serve {@code @Cacheable} and the other cache annotations.
 */
@NullMarked
package dev.stowage.spring;

import org.jspecify.annotations.NullMarked;
