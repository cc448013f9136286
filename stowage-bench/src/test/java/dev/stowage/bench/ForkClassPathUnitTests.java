package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

@ResourceLock(Resources.SYSTEM_PROPERTIES) // java.class.path, which it sets and reads
class ForkClassPathUnitTests {

  private static String path(String... entries) {
    return String.join(File.pathSeparator, entries);
  }

  @Test
  void keepsOnlyTheBenchmarksJarsInClassPathOrder() {
    String classPath =
        path(
            "app.jar",
            "lib/spring-core-6.2.6.jar",
            "lib/jmh-core-1.37.jar",
            "lib/stowage-bench-1.jar",
            "lib/kryo-5.6.2.jar");

    Optional<String> selected =
        ForkClassPath.select(
            classPath,
            Set.of("kryo-5.6.2.jar", "jmh-core-1.37.jar"),
            Optional.of(Path.of("lib/stowage-bench-1.jar")));

    assertThat(selected)
        .hasValue(path("lib/jmh-core-1.37.jar", "lib/stowage-bench-1.jar", "lib/kryo-5.6.2.jar"));
  }

  @Test
  void addsItsOwnClassesWhenTheClassPathLacksThem() {
    Optional<String> selected =
        ForkClassPath.select(
            path("x/kryo-5.6.2.jar"),
            Set.of("kryo-5.6.2.jar"),
            Optional.of(Path.of("/work/bench/classes")));

    assertThat(selected).hasValue(path("/work/bench/classes", "x/kryo-5.6.2.jar"));
  }

  @Test
  void fallsBackWhenADependencyIsMissingOrUnknown() {
    assertThat(
            ForkClassPath.select(
                path("a/kryo-5.6.2.jar"),
                Set.of("kryo-5.6.2.jar", "fory-core-0.13.0.jar"),
                Optional.of(Path.of("b.jar"))))
        .isEmpty();
    assertThat(
            ForkClassPath.select(path("a/kryo-5.6.2.jar"), Set.of(), Optional.of(Path.of("b.jar"))))
        .isEmpty();
    assertThat(
            ForkClassPath.select(
                path("a/kryo-5.6.2.jar"), Set.of("kryo-5.6.2.jar"), Optional.empty()))
        .isEmpty();
  }

  @Test
  void theBuildRecordsTheDependenciesAndRunRestoresTheProperty() throws Exception {
    assertThat(ForkClassPath.dependencyFileNames())
        .contains("jmh-core-1.37.jar")
        .allMatch(name -> name.endsWith(".jar"));

    String before = System.getProperty("java.class.path");
    String during = ForkClassPath.run(() -> System.getProperty("java.class.path"));

    assertThat(during).isEqualTo(ForkClassPath.forForks());
    assertThat(System.getProperty("java.class.path")).isEqualTo(before);
  }
}
