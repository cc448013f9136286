package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.StowageException;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.Envelope;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed envelopes under src/test/resources/envelope guard the wire format across versions.
 */
class EnvelopeGoldenUnitTests {

  static List<EnvelopeVectors.Vector> vectors() {
    return EnvelopeVectors.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void decodesTheGoldenFileAndReEncodesItToTheSameBytes(EnvelopeVectors.Vector vector) {
    byte[] golden = vector.golden();
    EnvelopeCodec<String> reader = EnvelopeVectors.reader();

    assertThat(reader.decode(golden)).isEqualTo(vector.value());
    assertThat(vector.writer().decode(golden)).isEqualTo(vector.value());
    assertThat(vector.writer().encode(vector.value()))
        .as("re-encoding %s", vector.name())
        .isEqualTo(golden);

    Envelope.Header header = Envelope.readHeader(golden);
    assertThat(header.codecId()).isEqualTo(vector.writer().writeCodec().id());
    assertThat(header.compressionId()).isEqualTo(vector.writer().compression().id());
    assertThat(header.dictionaryId())
        .isEqualTo(
            CompressionAccess.dictionary(vector.writer().compression())
                .map(d -> d.id())
                .orElse(-1L));
    assertThat(header.schemaVersion()).isEqualTo(vector.writer().schemaVersion().orElse(-1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void everyProperPrefixOfAGoldenFileIsRejectedOrDecodesToSomethingElse(
      EnvelopeVectors.Vector vector) {
    byte[] golden = vector.golden();
    EnvelopeCodec<String> reader = EnvelopeVectors.reader();
    for (int length = 0; length < golden.length; length++) {
      byte[] prefix = Arrays.copyOf(golden, length);
      try {
        assertThat(reader.decode(prefix)).isNotEqualTo(vector.value());
      } catch (StowageException expected) {
        // truncation is detected
      }
    }
  }
}
