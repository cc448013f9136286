package dev.stowage.board;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The board has no Redis client of its own: none of its classes names a Lettuce type (stowage mode
 * reaches Redis through core, the seed modes through Spring Data Redis). Its tests may, to look at
 * what was stored. Nor does it name mongo-java-server, the MongoDB test server its tests use. That
 * it uses core's public API only is {@link PublicApiOnlyUnitTests}' rule.
 */
@AnalyzeClasses(
    packages = "dev.stowage.board",
    importOptions = ImportOption.DoNotIncludeTests.class)
class BoardDependenciesUnitTests {

  @ArchTest
  static final ArchRule NO_BOARD_CLASS_NAMES_LETTUCE =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.lettuce..")
          .because(
              "the board reaches Redis through stowage-core or Spring Data Redis, never through Lettuce directly");

  @ArchTest
  static final ArchRule NO_BOARD_CLASS_NAMES_THE_MONGODB_TEST_SERVER =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAPackage("de.bwaldvogel..")
          .because(
              "mongo-java-server is a wire-compatible test server for tests only: against a real"
                  + " MongoDB nothing of the board may depend on it");
}
