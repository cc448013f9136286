package dev.stowage.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.testkit.BuiltJar;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * Core's built jar names its module ({@code dev.stowage.core}) in its manifest, so that a modular
 * application requires the same name whatever the jar's file is called; it carries the license; and
 * its entries have one fixed time, so that two builds of one commit give the same bytes. An
 * integration test because the jar exists only once {@code package} has run, before failsafe.
 */
class ModuleNameIntegrationTests {

  @Test
  void coresJarCarriesItsAutomaticModuleNameItsLicenseAndOneTimestamp() throws IOException {
    // The jar of this build's version: one of an earlier version may be left in target/.
    Path built = BuiltJar.of("stowage-core");
    assertThat(built.getFileName().toString()).matches("stowage-core-[^-]+(-SNAPSHOT)?\\.jar");
    try (JarFile jar = new JarFile(built.toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
          .isEqualTo("dev.stowage.core");
      // The license travels with the jar, the same text as the repository's.
      JarEntry license = jar.getJarEntry("META-INF/LICENSE");
      assertThat(license).as("META-INF/LICENSE").isNotNull();
      try (InputStream in = jar.getInputStream(license)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
            .isEqualTo(Files.readString(Path.of("..", "LICENSE")))
            .contains("Apache License");
      }
      // Reproducible: every entry has the build's fixed timestamp, not the time it was built.
      Set<Long> times = new HashSet<>();
      jar.stream().forEach(entry -> times.add(entry.getTime()));
      assertThat(times).as("entry times").hasSize(1);
    }
  }
}
