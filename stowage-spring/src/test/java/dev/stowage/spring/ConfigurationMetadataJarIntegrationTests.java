package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.testkit.BuiltJar;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The module's jar, as Maven packaged it before the integration tests run, holds the configuration
 * metadata an IDE reads from a dependency: the generated properties with the hints merged in.
 */
class ConfigurationMetadataJarIntegrationTests {

  @Test
  void theJarHoldsTheGeneratedMetadataWithItsHints() throws IOException {
    // The jar of this build's version: one of an earlier version may be left in target/.
    Path jar = BuiltJar.of("stowage-spring");
    try (JarFile file = new JarFile(jar.toFile())) {
      JarEntry entry = file.getJarEntry("META-INF/spring-configuration-metadata.json");
      assertThat(entry).as("the metadata in %s", jar).isNotNull();
      try (InputStream in = file.getInputStream(entry)) {
        JsonNode metadata = new ObjectMapper().readTree(in);
        List<String> properties = new ArrayList<>();
        metadata
            .path("properties")
            .forEach(property -> properties.add(property.path("name").asText()));
        List<String> hints = new ArrayList<>();
        metadata.path("hints").forEach(hint -> hints.add(hint.path("name").asText()));
        assertThat(properties)
            .contains(
                "stowage.connect-in-background",
                "stowage.defaults.codec",
                "stowage.defaults.load-when-unavailable");
        assertThat(hints)
            .contains(
                "stowage.defaults.codec", "stowage.defaults.compression", "stowage.defaults.type");
      }
    }
  }
}
