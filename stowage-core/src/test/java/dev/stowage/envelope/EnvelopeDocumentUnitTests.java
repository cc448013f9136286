package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.internal.format.StowageKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/ENVELOPE.md and the code must agree: its hex vectors are parsed and checked here. */
class EnvelopeDocumentUnitTests {
  private static final Pattern VECTOR =
      Pattern.compile("### Vector `([a-z0-9-]+)`.*?```hex\\n(.*?)```", Pattern.DOTALL);

  @Test
  void theDocumentedVectorsAreTheGoldenFilesAndTheEncoderOutput() throws IOException {
    String document = Files.readString(document(), StandardCharsets.UTF_8);
    Map<String, byte[]> documented = new LinkedHashMap<>();
    Matcher matcher = VECTOR.matcher(document);
    while (matcher.find()) {
      documented.put(
          matcher.group(1), HexFormat.of().parseHex(matcher.group(2).replaceAll("\\s+", "")));
    }

    assertThat(documented.keySet())
        .containsExactlyElementsOf(
            EnvelopeVectors.all().stream().map(EnvelopeVectors.Vector::name).toList());
    for (EnvelopeVectors.Vector vector : EnvelopeVectors.all()) {
      byte[] bytes = documented.get(vector.name());
      assertThat(bytes)
          .as("%s in docs/ENVELOPE.md against the golden file", vector.name())
          .isEqualTo(vector.golden());
      assertThat(EnvelopeVectors.reader().decode(bytes)).isEqualTo(vector.value());
      assertThat(vector.writer().encode(vector.value())).as(vector.name()).isEqualTo(bytes);
      assertThat(document).contains("```hex\n" + EnvelopeVectors.documentHex(bytes) + "\n```");
    }
  }

  @Test
  void theDocumentNamesTheTinyDictionaryAndItsId() throws IOException {
    String document = Files.readString(document(), StandardCharsets.UTF_8);
    assertThat(document)
        .contains("\n" + TestDictionaries.TINY_TEXT + "\n")
        .contains("Its id is `" + TestDictionaries.TINY.hexId() + "`")
        .contains(TestDictionaries.TINY.size() + " bytes of UTF-8 text");
  }

  @Test
  void theDocumentNamesTheKeysAsTheCodeDoes() throws IOException {
    String document = Files.readString(document(), StandardCharsets.UTF_8);
    assertThat(document)
        .contains("`" + StowageKeys.DICTIONARY_PREFIX + "<id as 8 lower-case hex digits>`")
        .contains("`" + StowageKeys.SCHEMA_PREFIX + "<fingerprint as 7 hex digits>`");
    assertThat(StowageKeys.dictionary(TestDictionaries.TINY.id()))
        .isEqualTo(StowageKeys.DICTIONARY_PREFIX + TestDictionaries.TINY.hexId());
  }

  private static Path document() {
    for (Path directory = Path.of("").toAbsolutePath();
        directory != null;
        directory = directory.getParent()) {
      Path candidate = directory.resolve("docs/ENVELOPE.md");
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError("docs/ENVELOPE.md not found above " + Path.of("").toAbsolutePath());
  }
}
