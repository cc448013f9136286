/**
 * Real servers for tests, as JUnit 5 extensions: {@link dev.stowage.testkit.WithRedis} starts a
 * {@code redis-server} per test class on an ephemeral port, {@link
 * dev.stowage.testkit.WithRedisSentinel} a master, a replica and sentinels, {@link
 * dev.stowage.testkit.WithRedisCluster} a cluster of three masters and three replicas, {@link
 * dev.stowage.testkit.WithPostgres} a fresh PostgreSQL database, and {@link
 * dev.stowage.testkit.WithKafka} a one-node Kafka broker in a child JVM that a test may kill and
 * restart, and {@link dev.stowage.testkit.WithMongo} mongo-java-server, a MongoDB wire-compatible
 * test server (not MongoDB), that a test may restart from its data file. The Redis processes and
 * the broker themselves are {@code dev.stowage.embedded}'s (stowage-redis-embedded), which tests
 * may also start directly, such as {@code RedisServer.startTls} with {@code TlsCertificates} made
 * for the test. Nothing here mocks a server, and nothing uses a shared one.
 */
package dev.stowage.testkit;
