package dev.stowage.server;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.stowage.testkit.StowageArchitecture;

/**
 * serve and events use stowage-core's public API only: {@link
 * StowageArchitecture#CORE_INTERNALS_UNUSED}, over main and test classes.
 */
@AnalyzeClasses(packages = "dev.stowage.server")
class PublicApiOnlyUnitTests {
  @ArchTest static final ArchRule CORE_INTERNALS_UNUSED = StowageArchitecture.CORE_INTERNALS_UNUSED;
}
