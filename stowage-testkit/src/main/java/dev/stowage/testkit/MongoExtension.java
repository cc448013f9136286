package dev.stowage.testkit;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link MongoTestServer} (a wire-compatible test server, not MongoDB) per test class,
 * resolves {@code MongoTestServer} parameters, and stops it and deletes its data when the class's
 * extension context closes. See {@link WithMongo}.
 */
public final class MongoExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(MongoExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    server(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == MongoTestServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return server(context);
  }

  private static MongoTestServer server(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    String owner = classContext.getDisplayName();
    return classContext
        .getStore(NAMESPACE)
        .computeIfAbsent(
            "server",
            key -> {
              long started = System.nanoTime();
              MongoTestServer server = MongoTestServer.start();
              System.out.printf(
                  "@WithMongo: mongo-java-server (a MongoDB wire-compatible test server,"
                      + " not MongoDB) at %s for %s, started in %d ms%n",
                  server.url(), owner, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
              return new Resource(server);
            },
            Resource.class)
        .server;
  }

  private static final class Resource implements AutoCloseable {
    final MongoTestServer server;

    Resource(MongoTestServer server) {
      this.server = server;
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
