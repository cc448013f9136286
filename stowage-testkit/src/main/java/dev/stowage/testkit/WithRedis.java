package dev.stowage.testkit;

import dev.stowage.embedded.RedisServer;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class its own real {@code redis-server} on an ephemeral port, started before the
 * first test and stopped after the last. Tests, constructors and lifecycle methods receive it as a
 * {@link RedisServer} parameter.
 *
 * <pre>{@code
 * @WithRedis
 * class FeedIntegrationTests {
 *   @Test
 *   void pages(RedisServer redis) { ... redis.uri() ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RedisExtension.class)
public @interface WithRedis {}
