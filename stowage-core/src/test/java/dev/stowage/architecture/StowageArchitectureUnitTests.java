package dev.stowage.architecture;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.stowage.Encoding;
import dev.stowage.codec.Codecs;
import dev.stowage.internal.codec.BuiltInCodecs;
import dev.stowage.testkit.StowageArchitecture;
import org.junit.jupiter.api.Test;

/**
 * The rule every other module checks ({@link StowageArchitecture#CORE_INTERNALS_UNUSED}) fails on a
 * class that uses core's internals and passes one that uses the public API only. Core itself may
 * use its internals, so the two classes here stand for another module's.
 */
class StowageArchitectureUnitTests {
  /** Uses an internal type. */
  static final class UsesInternals {
    Object codec() {
      return BuiltInCodecs.thrift(Object.class);
    }
  }

  /** Uses the public API only. */
  static final class UsesPublicApi {
    Object encoding() {
      return Encoding.of(Codecs.string());
    }
  }

  @Test
  void theRuleFailsOnAClassThatUsesCoreInternals() {
    JavaClasses classes = new ClassFileImporter().importClasses(UsesInternals.class);
    assertThatThrownBy(() -> StowageArchitecture.CORE_INTERNALS_UNUSED.check(classes))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("BuiltInCodecs");
  }

  @Test
  void theRulePassesAClassThatUsesThePublicApiOnly() {
    JavaClasses classes = new ClassFileImporter().importClasses(UsesPublicApi.class);
    assertThatCode(() -> StowageArchitecture.CORE_INTERNALS_UNUSED.check(classes))
        .doesNotThrowAnyException();
  }
}
