package dev.stowage.testkit;

import dev.stowage.embedded.RedisServer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link RedisServer} per test class and resolves {@code RedisServer} parameters. The
 * server is closed when the class's extension context closes. See {@link WithRedis}.
 */
public final class RedisExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(RedisExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    server(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RedisServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return server(context);
  }

  private static RedisServer server(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .computeIfAbsent("server", key -> new Resource(RedisServer.start()), Resource.class)
        .server;
  }

  private static final class Resource implements AutoCloseable {
    final RedisServer server;

    Resource(RedisServer server) {
      this.server = server;
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
