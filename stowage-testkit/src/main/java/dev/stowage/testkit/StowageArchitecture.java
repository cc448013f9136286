package dev.stowage.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;

/**
 * The architecture rules that every module outside stowage-core checks in its tests, written once:
 * a module checks each as {@code @ArchTest static final ArchRule CORE_INTERNALS_UNUSED =
 * StowageArchitecture.CORE_INTERNALS_UNUSED;} under {@code @AnalyzeClasses} of its own packages.
 */
public final class StowageArchitecture {
  /**
   * Core's internal packages, spelled in two parts so that a grep for the name finds only code that
   * uses them.
   */
  private static final String CORE_INTERNALS = "dev.stowage." + "internal..";

  /**
   * No class, main or test, uses a type of core's {@code internal} packages, which may change
   * without notice: what another module needs from core belongs in core's public API.
   */
  public static final ArchRule CORE_INTERNALS_UNUSED =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAPackage(CORE_INTERNALS)
          .because(
              "only stowage-core may use its internal packages; what another module needs belongs in the public API");

  private StowageArchitecture() {}
}
