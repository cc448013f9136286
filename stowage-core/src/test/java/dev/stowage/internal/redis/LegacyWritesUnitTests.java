package dev.stowage.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.EnvelopeException;
import dev.stowage.codec.Codecs;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.Envelope;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LegacyWritesUnitTests {
  /** Text as UTF-16BE, whose first byte a value can choose: 0xC1 for U+C1xx. */
  private static final Codec<String> UTF16 =
      new Codec<>() {
        @Override
        public int id() {
          return 128;
        }

        @Override
        public byte[] encode(String value) {
          return value.getBytes(StandardCharsets.UTF_16BE);
        }

        @Override
        public String decode(byte[] data, int offset, int length) {
          return new String(data, offset, length, StandardCharsets.UTF_16BE);
        }
      };

  private static WriteCodec<String> legacyWrites(int maxDecodedSize) {
    EnvelopeCodec<String> reader =
        EnvelopeCodec.builder(Codecs.string()).legacy(UTF16).maxDecodedSize(maxDecodedSize).build();
    return WriteCodec.legacyWrites(reader, UTF16);
  }

  @Test
  void writesTheLegacyCodecsBytesAndReadsThemAndEnvelopes() {
    WriteCodec<String> codec = legacyWrites(1024);
    byte[] written = codec.encode("hello");
    assertThat(written).isEqualTo(UTF16.encode("hello"));
    assertThat(codec.encodeAll(List.of("a", "b"), i -> "value " + i))
        .containsExactly(UTF16.encode("a"), UTF16.encode("b"));
    assertThat(codec.isLearning()).isFalse();
    assertThat(codec.current().decode(written)).isEqualTo("hello");
    assertThat(
            codec
                .current()
                .decode(EnvelopeCodec.builder(Codecs.string()).build().encode("enveloped")))
        .isEqualTo("enveloped");
  }

  @Test
  void refusesAValueThatWouldReadAsAnEnvelope() {
    String startsWithMagic = "\uC110";
    assertThat(Envelope.isEnvelope(UTF16.encode(startsWithMagic))).isTrue();
    assertThatThrownBy(() -> legacyWrites(1024).encode(startsWithMagic))
        .isInstanceOf(EnvelopeException.class)
        .hasMessage(
            "legacy codec user-128 wrote a value starting with 0xc1, which readers would take for an envelope");
  }

  @Test
  void refusesAValueLargerThanReadersRead() {
    assertThatThrownBy(() -> legacyWrites(8).encode("12345"))
        .isInstanceOf(EnvelopeException.class)
        .hasMessage(
            "legacy codec user-128 encoded a value to 10 bytes, more than maxDecodedSize 8");
  }
}
