/**
 * Real {@code redis-server} processes, with no test framework: {@link
 * dev.stowage.embedded.RedisServer} starts one on an ephemeral loopback port (alone, or with {@link
 * dev.stowage.embedded.RedisServer#startTls} speaking only TLS with {@link
 * dev.stowage.embedded.TlsCertificates} made for the run), and {@link
 * dev.stowage.embedded.RedisSentinelSet} a master, a replica and sentinels, and {@link
 * dev.stowage.embedded.RedisClusterSet} a cluster of three masters and three replicas; {@link
 * dev.stowage.embedded.KafkaBroker} a one-node Kafka broker in a child JVM. The benchmarks and
 * {@code stowage serve} use it as their embedded Redis; stowage-testkit's JUnit extensions hand it
 * to tests. Nothing here mocks a server, and nothing uses a shared one.
 */
package dev.stowage.embedded;
