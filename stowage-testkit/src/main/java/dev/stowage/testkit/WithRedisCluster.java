package dev.stowage.testkit;

import dev.stowage.embedded.RedisClusterSet;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class its own Redis Cluster (six nodes on ephemeral ports: three masters covering
 * all 16384 slots, one replica of each), started before the first test and stopped after the last.
 * Tests, constructors and lifecycle methods receive it as a {@link RedisClusterSet} parameter.
 *
 * <pre>{@code
 * @WithRedisCluster
 * class ClusterIntegrationTests {
 *   @Test
 *   void spreadsKeys(RedisClusterSet cluster) { ... RedisClusterClient.create(cluster.seedUri()) ... }
 * }
 * }</pre>
 *
 * <p>The tests of a class share the cluster, so a test that kills a master or migrates a slot
 * leaves the cluster so for the tests after it; {@link RedisClusterSet#masters()} and {@link
 * RedisClusterSet#nodeForSlot} say how it is now, and {@link RedisClusterSet#revive} brings a
 * killed node back as a replica. A test that needs the cluster as it started can start its own with
 * {@link RedisClusterSet#start()}.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RedisClusterExtension.class)
public @interface WithRedisCluster {}
