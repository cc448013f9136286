package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module's jar, as Maven packaged it before the integration tests run, holds the configuration
 * metadata an IDE reads from a dependency: the generated properties with the hints merged in.
 */
class ConfigurationMetadataJarIntegrationTests {

  @Test
  void theJarHoldsTheGeneratedMetadataWithItsHints() throws IOException {
    Path jar;
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      jar =
          files
              .filter(
                  file ->
                      file.getFileName()
                          .toString()
                          .matches("stowage-spring-[\\d.]+(-SNAPSHOT)?\\.jar"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no stowage-spring jar in target/"));
    }
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
