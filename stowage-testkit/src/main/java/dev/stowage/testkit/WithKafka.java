package dev.stowage.testkit;

import dev.stowage.embedded.KafkaBroker;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class its own real Kafka broker (KRaft, one node as broker and controller, on
 * ephemeral loopback ports, in a child JVM), started before the first test and stopped after the
 * last. Tests, constructors and lifecycle methods receive it as a {@link KafkaBroker} parameter,
 * which can also {@link KafkaBroker#kill() kill} and {@link KafkaBroker#restart() restart} it on
 * the same ports and data. The start time is printed once per class.
 *
 * <pre>{@code
 * @WithKafka
 * class RelayIntegrationTests {
 *   @Test
 *   void publishes(KafkaBroker kafka) { ... kafka.bootstrapServers() ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(KafkaExtension.class)
public @interface WithKafka {}
