/**
 * Stowage's public API: the front door ({@link dev.stowage.Stowage}), the caches and feeds it makes
 * ({@link dev.stowage.RedisCache}, {@link dev.stowage.AsyncRedisCache}, {@link dev.stowage.Feed}),
 * the codec SPI, the envelope and the exceptions. Parameters and return values are never {@code
 * null} unless a method says otherwise.
 */
@NullMarked
package dev.stowage;

import org.jspecify.annotations.NullMarked;
