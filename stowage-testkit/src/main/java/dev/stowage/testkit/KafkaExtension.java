package dev.stowage.testkit;

import dev.stowage.embedded.KafkaBroker;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link KafkaBroker} per test class, prints how long it took, and resolves {@code
 * KafkaBroker} parameters. The broker is stopped and its data deleted when the class's extension
 * context closes. See {@link WithKafka}.
 */
public final class KafkaExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(KafkaExtension.class);

  /**
   * A test's broker lives seconds: C1 only, which takes about 40% off the CPU of its formatting,
   * start and restart (6.5 against 10.4 CPU seconds for a start and a restart: /usr/bin/time around
   * a program, not kept, that started and restarted one broker with and without the option).
   */
  private static final List<String> BROKER_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1");

  @Override
  public void beforeAll(ExtensionContext context) {
    broker(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == KafkaBroker.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return broker(context);
  }

  private static KafkaBroker broker(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    String owner = classContext.getDisplayName();
    return classContext
        .getStore(NAMESPACE)
        .computeIfAbsent(
            "broker",
            key -> {
              long started = System.nanoTime();
              KafkaBroker broker = KafkaBroker.start(BROKER_JVM_OPTIONS);
              System.out.printf(
                  "@WithKafka: Kafka broker on %s for %s: formatted and started in %d ms"
                      + " (the broker's JVM answered %d ms after launch)%n",
                  broker.bootstrapServers(),
                  owner,
                  TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                  broker.lastStartTime().toMillis());
              return new Resource(broker);
            },
            Resource.class)
        .broker;
  }

  private static final class Resource implements AutoCloseable {
    final KafkaBroker broker;

    Resource(KafkaBroker broker) {
      this.broker = broker;
    }

    @Override
    public void close() {
      broker.close();
    }
  }
}
