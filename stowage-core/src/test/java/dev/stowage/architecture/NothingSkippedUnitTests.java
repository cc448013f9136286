package dev.stowage.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Nothing in core's tests is skipped to get green: a test runs on everything it is written for, and
 * passes, or is not there. No test class uses an assumption (JUnit's or AssertJ's), {@code
 * Disabled}, or a condition of {@code org.junit.jupiter.api.condition}: each aborts or skips a test
 * while the build stays green, and Surefire's reports of a parameterized class do not even count
 * the skips.
 */
class NothingSkippedUnitTests {
  private static final ArchRule NOTHING_SKIPPED =
      noClasses()
          .should()
          .dependOnClassesThat(
              resideInAPackage("org.junit.jupiter.api.condition")
                  .or(name("org.junit.jupiter.api.Assumptions"))
                  .or(name("org.assertj.core.api.Assumptions"))
                  .or(name("org.junit.jupiter.api.Disabled")))
          .because("nothing is skipped to get green");

  /** Skips its test unless it is ready: what the rule is to find. */
  static final class Assuming {
    void test(boolean ready) {
      Assumptions.assumeTrue(ready, "not ready");
    }
  }

  /** A test switched off: what the rule is to find too. */
  static final class Disabling {
    @Disabled("switched off")
    void test() {}
  }

  @Test
  void noTestOfCoreIsSkipped() {
    JavaClasses tests =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
            .importPackages("dev.stowage");
    assertThat(tests).as("core's test classes").hasSizeGreaterThan(100);

    NOTHING_SKIPPED.check(tests.that(not(belongToAnyOf(Assuming.class, Disabling.class))));
  }

  @Test
  void theRuleFindsAnAssumptionAndADisabledTest() {
    assertThatThrownBy(
            () -> NOTHING_SKIPPED.check(new ClassFileImporter().importClasses(Assuming.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Assumptions.assumeTrue");
    assertThatThrownBy(
            () -> NOTHING_SKIPPED.check(new ClassFileImporter().importClasses(Disabling.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Disabled");
  }
}
