package dev.stowage.testkit;

import dev.stowage.embedded.RedisSentinelSet;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class its own Sentinel topology (a master, a replica and three sentinels on
 * ephemeral ports), started before the first test and stopped after the last. Tests, constructors
 * and lifecycle methods receive it as a {@link RedisSentinelSet} parameter.
 *
 * <pre>{@code
 * @WithRedisSentinel
 * class SentinelIntegrationTests {
 *   @Test
 *   void followsTheMaster(RedisSentinelSet redis) { ... redis.uri() ... redis.failover() ... }
 * }
 * }</pre>
 *
 * <p>The tests of a class share the topology, so a test that fails it over leaves the other server
 * as master for the tests after it; {@link RedisSentinelSet#master()} says which.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RedisSentinelExtension.class)
public @interface WithRedisSentinel {}
