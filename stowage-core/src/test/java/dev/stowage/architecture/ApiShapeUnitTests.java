package dev.stowage.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.stowage.AsyncFeed;
import dev.stowage.AsyncRedisCache;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;

/**
 * The shape of core's public API that no single feature test would notice losing: the blocking and
 * asynchronous views of a cache or a feed offer the same operations, and every package of core
 * declares its null rules.
 */
class ApiShapeUnitTests {

  /**
   * Each blocking method has an asynchronous counterpart of the same name and parameters, and each
   * asynchronous one a blocking one, but for the two accessors that lead from one view to the other
   * ({@code async()} and {@code synchronous()}) and the operations listed in {@code asyncOnly}. An
   * operation that goes to Redis returns a {@link CompletableFuture} in the asynchronous view.
   */
  private static void assertMirror(
      Class<?> blocking, Class<?> async, Set<String> blockingOnly, Set<String> asyncOnly) {
    Set<String> blockingOps = signatures(blocking);
    Set<String> asyncOps = signatures(async);
    Set<String> missingInAsync = new TreeSet<>(blockingOps);
    missingInAsync.removeAll(asyncOps);
    missingInAsync.removeAll(blockingOnly);
    Set<String> missingInBlocking = new TreeSet<>(asyncOps);
    missingInBlocking.removeAll(blockingOps);
    missingInBlocking.removeAll(asyncOnly);
    assertThat(missingInAsync)
        .as("methods of %s without a counterpart in %s", blocking.getSimpleName(), async.getName())
        .isEmpty();
    assertThat(missingInBlocking)
        .as("methods of %s without a counterpart in %s", async.getSimpleName(), blocking.getName())
        .isEmpty();
  }

  /** The public abstract methods of an interface, as {@code name(ParameterTypes)}. */
  private static Set<String> signatures(Class<?> type) {
    return Arrays.stream(type.getMethods())
        .filter(m -> Modifier.isAbstract(m.getModifiers()))
        .map(ApiShapeUnitTests::signature)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static String signature(Method method) {
    return method.getName()
        + Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(",", "(", ")"));
  }

  @Test
  void theCacheViewsMirrorEachOther() {
    assertMirror(
        RedisCache.class,
        AsyncRedisCache.class,
        Set.of("async()"),
        // A loader that returns a stage has no use for a blocking caller, whose getOrLoad loader
        // can wait for the stage itself.
        Set.of("synchronous()", "getOrLoadAsync(Object,Function)"));
  }

  @Test
  void theFeedViewsMirrorEachOther() {
    assertMirror(Feed.class, AsyncFeed.class, Set.of("async()"), Set.of("synchronous()"));
  }

  @Test
  void anAsynchronousViewReturnsAFutureWhereTheBlockingViewGoesToRedis() throws Exception {
    // What each blocking view answers locally, without a round trip.
    Set<String> local =
        Set.of("name", "stats", "compression", "redisKey", "decodeFailures", "async");
    for (Class<?>[] pair :
        new Class<?>[][] {
          {RedisCache.class, AsyncRedisCache.class}, {Feed.class, AsyncFeed.class}
        }) {
      for (Method blocking : pair[0].getMethods()) {
        if (!Modifier.isAbstract(blocking.getModifiers()) || local.contains(blocking.getName())) {
          continue;
        }
        Method async = pair[1].getMethod(blocking.getName(), blocking.getParameterTypes());
        assertThat(async.getReturnType())
            .as("%s.%s", pair[1].getSimpleName(), signature(async))
            .isEqualTo(CompletableFuture.class);
      }
    }
  }

  @Test
  @SuppressWarnings("UnusedMethod") // the two interfaces' methods are read by reflection only
  void theMirrorCheckFailsOnViewsThatDiffer() {
    interface Blocking {
      String name();

      long size();
    }
    interface Async {
      CompletableFuture<Long> size();
    }
    assertThatThrownBy(() -> assertMirror(Blocking.class, Async.class, Set.of(), Set.of()))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("name()");
  }

  @Test
  void everyPackageOfCoreIsNullMarked() throws ClassNotFoundException {
    Set<String> packages =
        new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.stowage")
                .stream()
                .filter(
                    c ->
                        c.getSource()
                            .map(s -> s.getUri().toString())
                            .orElse("")
                            .contains("/stowage-core/target/classes/"))
                .map(JavaClass::getPackageName)
                .collect(Collectors.toCollection(TreeSet::new));
    assertThat(packages).contains("dev.stowage", "dev.stowage.codec", "dev.stowage.internal.codec");
    Set<String> unmarked = new TreeSet<>();
    for (String name : packages) {
      Class<?> info;
      try {
        info = Class.forName(name + ".package-info");
      } catch (ClassNotFoundException e) {
        unmarked.add(name + " (no package-info.java)");
        continue;
      }
      if (!info.isAnnotationPresent(NullMarked.class)) {
        unmarked.add(name);
      }
    }
    assertThat(unmarked).as("packages of stowage-core without @NullMarked").isEmpty();
  }
}
