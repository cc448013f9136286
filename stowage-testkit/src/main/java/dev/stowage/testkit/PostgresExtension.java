package dev.stowage.testkit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Creates one fresh {@link PostgresDatabase} per test class, resolves {@code PostgresDatabase}
 * parameters, and drops the database when the class's extension context closes. See {@link
 * WithPostgres}.
 */
public final class PostgresExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(PostgresExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    database(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PostgresDatabase.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return database(context);
  }

  private static PostgresDatabase database(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .computeIfAbsent("database", key -> new Resource(PostgresDatabase.create()), Resource.class)
        .database;
  }

  private static final class Resource implements AutoCloseable {
    final PostgresDatabase database;

    Resource(PostgresDatabase database) {
      this.database = database;
    }

    @Override
    public void close() {
      database.close();
    }
  }
}
