package dev.stowage.testkit;

import dev.stowage.embedded.RedisClusterSet;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link RedisClusterSet} per test class and resolves {@code RedisClusterSet}
 * parameters. The cluster is closed when the class's extension context closes. See {@link
 * WithRedisCluster}.
 */
public final class RedisClusterExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(RedisClusterExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RedisClusterSet.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster(context);
  }

  private static RedisClusterSet cluster(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .computeIfAbsent("cluster", key -> new Resource(RedisClusterSet.start()), Resource.class)
        .cluster;
  }

  private static final class Resource implements AutoCloseable {
    final RedisClusterSet cluster;

    Resource(RedisClusterSet cluster) {
      this.cluster = cluster;
    }

    @Override
    public void close() {
      cluster.close();
    }
  }
}
