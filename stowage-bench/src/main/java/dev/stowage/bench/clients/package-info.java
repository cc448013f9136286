/**
 * Table T4 ({@code stowage bench clients}): GETs of random keys out of N loaded, from many
 * concurrent callers, through Jedis as the fourth seed configured it (Spring's default factory, and
 * a pool of 128), one shared Lettuce connection, Stowage, and {@code redis-benchmark} as the limit.
 */
package dev.stowage.bench.clients;
