/**
 * Issue 13's benchmark ({@code stowage bench nearcache}): hot-key reads drawn from a Zipf
 * distribution by many callers while a writer updates 1% of the keys a second, through Stowage
 * without and with its near cache, Lettuce's client-side caching and Redisson's local cached map;
 * reads per second, latency, near hits, and reads that returned a version older than one the client
 * had already shown.
 */
package dev.stowage.bench.nearcache;
