package dev.stowage.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Core's internal packages form no cycle, so each can be read, and changed, knowing only those it
 * uses: the connection below the near cache, both below the storages, the storages below the cache
 * engine and the feed. That nothing outside core uses them is checked in every other module ({@code
 * StowageArchitecture.CORE_INTERNALS_UNUSED}).
 */
class InternalPackagesUnitTests {
  @Test
  void theInternalPackagesFormNoCycle() {
    JavaClasses core =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.stowage");
    slices().matching("dev.stowage.internal.(*)..").should().beFreeOfCycles().check(core);
  }
}
