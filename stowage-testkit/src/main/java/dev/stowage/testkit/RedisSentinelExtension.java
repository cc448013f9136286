package dev.stowage.testkit;

import dev.stowage.embedded.RedisSentinelSet;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link RedisSentinelSet} per test class and resolves {@code RedisSentinelSet}
 * parameters. The topology is closed when the class's extension context closes. See {@link
 * WithRedisSentinel}.
 */
public final class RedisSentinelExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(RedisSentinelExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    sentinels(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RedisSentinelSet.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return sentinels(context);
  }

  private static RedisSentinelSet sentinels(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .computeIfAbsent("sentinels", key -> new Resource(RedisSentinelSet.start()), Resource.class)
        .sentinels;
  }

  private static final class Resource implements AutoCloseable {
    final RedisSentinelSet sentinels;

    Resource(RedisSentinelSet sentinels) {
      this.sentinels = sentinels;
    }

    @Override
    public void close() {
      sentinels.close();
    }
  }
}
