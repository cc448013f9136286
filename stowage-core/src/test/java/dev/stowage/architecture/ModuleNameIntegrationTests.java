package dev.stowage.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Core's built jar names its module ({@code dev.stowage.core}) in its manifest, so that a modular
 * application requires the same name whatever the jar's file is called. An integration test because
 * the jar exists only once {@code package} has run, before failsafe.
 */
class ModuleNameIntegrationTests {

  @Test
  void coresJarCarriesItsAutomaticModuleName() throws IOException {
    List<Path> jars;
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      jars =
          files
              .filter(
                  p -> p.getFileName().toString().matches("stowage-core-[^-]+(-SNAPSHOT)?\\.jar"))
              .toList();
    }
    assertThat(jars).as("core's jar in target/").hasSize(1);
    try (JarFile jar = new JarFile(jars.get(0).toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
          .isEqualTo("dev.stowage.core");
    }
  }
}
