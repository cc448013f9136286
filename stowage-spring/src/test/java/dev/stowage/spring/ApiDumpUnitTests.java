package dev.stowage.spring;

import dev.stowage.testkit.ApiDump;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The module's public API is the committed {@code api/stowage-spring.api}: a change to a public
 * type or member fails here, with the lines that differ, until the file is rewritten with {@code
 * -Dstowage.api.update=true} (docs/ARCHITECTURE.md, "Build checks in detail") and committed with
 * the change.
 */
class ApiDumpUnitTests {

  private static final Path MODULE =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();

  @Test
  void thePublicApiIsTheCommittedOne() {
    ApiDump.check(
        MODULE.resolve("target/classes"),
        Set.of("dev.stowage.spring"),
        MODULE.resolve("api/stowage-spring.api"));
  }
}
