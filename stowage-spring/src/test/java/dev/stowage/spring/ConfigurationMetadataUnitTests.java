package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.codec.Codecs;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata that Boot's configuration processor generates into the module's
 * classes (and so its jar), as an IDE reads it: every {@code stowage.*} property with its
 * description and default, and the value hints for codec, compression, type and the legacy codec.
 */
class ConfigurationMetadataUnitTests {
  private static final String METADATA = "META-INF/spring-configuration-metadata.json";

  /** Stowage's metadata file, among those of the class path (Boot's jars have theirs). */
  private static JsonNode metadata() throws IOException {
    for (URL url :
        Collections.list(
            ConfigurationMetadataUnitTests.class.getClassLoader().getResources(METADATA))) {
      try (InputStream in = url.openStream()) {
        JsonNode json = new ObjectMapper().readTree(in);
        for (JsonNode group : json.path("groups")) {
          if ("stowage".equals(group.path("name").asText())) {
            assertThat(url.toString())
                .as("generated into this module's classes")
                .contains("stowage-spring");
            return json;
          }
        }
      }
    }
    throw new AssertionError(
        METADATA + " with the stowage group is not on the class path: not generated");
  }

  private static Map<String, JsonNode> byName(JsonNode array) {
    Map<String, JsonNode> byName = new TreeMap<>();
    array.forEach(node -> byName.put(node.path("name").asText(), node));
    return byName;
  }

  private static List<String> values(JsonNode hint) {
    List<String> values = new ArrayList<>();
    hint.path("values").forEach(value -> values.add(value.path("value").asText()));
    return values;
  }

  @Test
  void everyPropertyIsDescribedWithItsDefault() throws IOException {
    Map<String, JsonNode> properties = byName(metadata().path("properties"));

    assertThat(properties)
        .containsKeys(
            "stowage.cache-null-values",
            "stowage.allowed-packages",
            "stowage.connect-in-background",
            "stowage.caches",
            "stowage.defaults.ttl",
            "stowage.defaults.ttl-jitter",
            "stowage.defaults.codec",
            "stowage.defaults.compression",
            "stowage.defaults.key-prefix",
            "stowage.defaults.type",
            "stowage.defaults.load-when-unavailable",
            "stowage.defaults.near-cache.enabled",
            "stowage.defaults.near-cache.maximum-size",
            "stowage.defaults.near-cache.expire-after-write");
    assertThat(properties.get("stowage.connect-in-background").path("defaultValue").asBoolean())
        .isTrue();
    assertThat(properties.get("stowage.cache-null-values").path("defaultValue").asBoolean())
        .isTrue();
    assertThat(properties.get("stowage.connect-in-background").path("description").asText())
        .contains("starts while Redis cannot be reached");
    properties.forEach(
        (name, property) ->
            assertThat(property.path("description").asText())
                .as("the description of %s", name)
                .isNotBlank());
  }

  @Test
  void codecCompressionTypeAndLegacyCodecHaveValueHints() throws IOException {
    Map<String, JsonNode> hints = byName(metadata().path("hints"));

    assertThat(values(hints.get("stowage.defaults.codec")))
        .containsExactlyElementsOf(Codecs.names());
    assertThat(values(hints.get("stowage.defaults.compression")))
        .containsExactlyElementsOf(StowageCacheManager.COMPRESSIONS);
    assertThat(hints.get("stowage.defaults.type").path("providers").get(0).path("name").asText())
        .isEqualTo("class-reference");
    assertThat(values(hints.get("stowage.defaults.legacy-codec")))
        .containsExactly("spring-json", "jackson-json", "jdk", "string");
    hints
        .values()
        .forEach(
            hint ->
                hint.path("values")
                    .forEach(
                        value ->
                            assertThat(value.path("description").asText())
                                .as("%s in %s", value, hint.path("name"))
                                .isNotBlank()));
  }
}
