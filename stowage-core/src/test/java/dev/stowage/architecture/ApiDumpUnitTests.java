package dev.stowage.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.testkit.ApiDump;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Core's public API is the committed {@code api/stowage-core.api}: a change to a public type or
 * member of the exported packages fails here, with the lines that differ, until the file is
 * rewritten (one command, in docs/ARCHITECTURE.md, "Build checks in detail") and committed with the
 * change.
 */
class ApiDumpUnitTests {

  /** The packages core exports; everything else is {@code dev.stowage.internal}. */
  static final Set<String> EXPORTED =
      Set.of("dev.stowage", "dev.stowage.codec", "dev.stowage.compress");

  private static final Path MODULE =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();

  @Test
  void thePublicApiIsTheCommittedOne() {
    ApiDump.check(
        MODULE.resolve("target/classes"), EXPORTED, MODULE.resolve("api/stowage-core.api"));
  }

  @Test
  void theDumpListsPublicMembersAndLeavesInternalsOut() {
    String dump = ApiDump.of(MODULE.resolve("target/classes"), EXPORTED);

    assertThat(dump)
        .contains("public final class dev.stowage.Stowage")
        .contains("public static dev.stowage.Stowage$Builder builder()")
        .doesNotContainPattern("(class|interface|enum|record) dev\\.stowage\\.internal\\.")
        .doesNotContain(" private ");
  }
}
