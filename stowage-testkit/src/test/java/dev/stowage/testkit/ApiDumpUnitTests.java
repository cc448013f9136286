package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** The dump of this module's own classes, and the check against a file, both ways. */
@Isolated("It sets a system property that other classes' API dumps read.")
class ApiDumpUnitTests {

  private static final Path CLASSES =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
          .toAbsolutePath()
          .resolve("target/classes");

  private static final Set<String> PACKAGES = Set.of("dev.stowage.testkit");

  @TempDir Path temp;

  @Test
  void theDumpHasPublicTypesAndMembersWithTheirGenericSignaturesAndNoPrivateOnes() {
    String dump = ApiDump.of(CLASSES, PACKAGES);

    assertThat(dump)
        .contains("public final class dev.stowage.testkit.ApiDump\n")
        .contains("  public static final java.lang.String UPDATE_PROPERTY\n")
        .contains(
            "  public static java.lang.String of(java.nio.file.Path, java.util.Set<java.lang.String>)\n")
        .contains("@interface dev.stowage.testkit.WithRedis")
        .doesNotContain("typedLines")
        .doesNotContain("interfaceModifiers");
  }

  @Test
  void aDifferentFileFailsWithTheLinesThatDifferAndTheUpdateRewritesIt() throws Exception {
    Path file = temp.resolve("api/testkit.api");
    Files.createDirectories(file.getParent());
    String actual = ApiDump.of(CLASSES, PACKAGES);
    Files.writeString(
        file,
        actual.replace(
                "  public static final java.lang.String UPDATE_PROPERTY\n",
                "  public static final java.lang.String RENAMED\n")
            + "public final class dev.stowage.testkit.Gone\n\n");

    // Whatever the build was given (-Dstowage.api.update=true rewrites the committed dumps).
    String before = System.getProperty(ApiDump.UPDATE_PROPERTY);
    try {
      System.clearProperty(ApiDump.UPDATE_PROPERTY);
      assertThatThrownBy(() -> ApiDump.check(CLASSES, PACKAGES, file))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("-Dstowage.api.update=true")
          .hasMessageContaining(
              "- public final class dev.stowage.testkit.ApiDump {"
                  + " public static final java.lang.String RENAMED }")
          .hasMessageContaining(
              "+ public final class dev.stowage.testkit.ApiDump {"
                  + " public static final java.lang.String UPDATE_PROPERTY }")
          .hasMessageContaining("- public final class dev.stowage.testkit.Gone");

      System.setProperty(ApiDump.UPDATE_PROPERTY, "true");
      ApiDump.check(CLASSES, PACKAGES, file);
      assertThat(Files.readString(file)).isEqualTo(actual);

      System.clearProperty(ApiDump.UPDATE_PROPERTY);
      ApiDump.check(CLASSES, PACKAGES, file);
    } finally {
      if (before == null) {
        System.clearProperty(ApiDump.UPDATE_PROPERTY);
      } else {
        System.setProperty(ApiDump.UPDATE_PROPERTY, before);
      }
    }
  }
}
