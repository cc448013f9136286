package dev.stowage.bench.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The bench commands use stowage-core's public API only: no class of this module, main or test, uses a
 * type of core's {@code internal} packages, which may change without notice.
 */
@AnalyzeClasses(packages = "dev.stowage.bench.cli")
class PublicApiOnlyUnitTests {
  /** Core's internal packages, spelled in two parts so that a grep for the name finds only code that uses them. */
  private static final String CORE_INTERNALS = "dev.stowage." + "internal..";

  @ArchTest
  static final ArchRule NOTHING_USES_CORE_INTERNALS = noClasses()
      .should().dependOnClassesThat().resideInAPackage(CORE_INTERNALS)
      .because("only stowage-core may use its internal packages; what another module needs belongs in the public API");
}
