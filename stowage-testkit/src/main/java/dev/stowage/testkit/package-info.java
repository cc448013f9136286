/**
 * Real servers for tests: {@link dev.stowage.testkit.WithRedis} starts a {@code redis-server} per
 * test class on an ephemeral port, {@link dev.stowage.testkit.WithRedisSentinel} a master, a
 * replica and sentinels, and {@link dev.stowage.testkit.RedisServer#startTls} a server that speaks
 * only TLS with {@link dev.stowage.testkit.TlsCertificates} made for the test. Nothing here mocks
 * a server, and nothing uses a shared one.
 */
package dev.stowage.testkit;
