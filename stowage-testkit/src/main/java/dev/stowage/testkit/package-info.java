/**
 * Real servers for tests: {@link dev.stowage.testkit.WithRedis} starts a {@code redis-server} per
 * test class on an ephemeral port. Nothing here mocks a server, and nothing uses a shared one.
 */
package dev.stowage.testkit;
