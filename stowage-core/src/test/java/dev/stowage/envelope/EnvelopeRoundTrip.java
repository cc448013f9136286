package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Codec;
import dev.stowage.compress.Compression;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.Schemas;
import java.util.Arrays;
import java.util.List;

/**
 * The one round-trip check that every codec x compression test goes through: encode inside the
 * envelope, check the header against the configuration, check the threshold and shrink rules, and
 * decode both through the writer and through a reader configured for something else entirely.
 */
public final class EnvelopeRoundTrip {
  private EnvelopeRoundTrip() {}

  /** Every compression, each at its default threshold and at threshold 0. */
  public static List<Compression> compressions() {
    return List.of(
        Compression.none(),
        Compression.lz4(),
        Compression.lz4().minSize(0),
        Compression.zstd(),
        Compression.zstd(19).minSize(0),
        Compression.zstd(-5),
        CompressionAccess.zstd(TestDictionaries.TINY),
        CompressionAccess.zstd(TestDictionaries.TINY, 7).minSize(0));
  }

  /**
   * Round-trips {@code value} and returns the encoded bytes.
   *
   * @param otherCodec a codec with another id and the same type, the write codec of the
   *     cross-reading check; its reader is told about {@code codec} with {@code alsoRead}
   */
  public static <T> byte[] assertRoundTrip(
      Codec<T> codec, Codec<T> otherCodec, Compression compression, T value) {
    EnvelopeCodec<T> writer = EnvelopeCodec.builder(codec).compression(compression).build();
    byte[] bare = codec.encode(value);
    byte[] encoded = writer.encode(value);

    Envelope.Header header = Envelope.readHeader(encoded);
    assertThat(header.version()).isEqualTo(1);
    assertThat(header.codecId()).isEqualTo(codec.id());
    if (codec instanceof Codec.Evolving<T> evolving) {
      assertThat(header.schemaVersion())
          .as("an evolving codec's fingerprint")
          .isEqualTo(Schemas.fingerprint(evolving.schema()));
    } else {
      assertThat(header.hasSchemaVersion()).isFalse();
    }
    boolean eligible =
        compression.id() != CompressionIds.NONE && bare.length >= compression.minSize();
    if (header.compressionId() == CompressionIds.NONE) {
      assertThat(Arrays.copyOfRange(encoded, header.payloadOffset(), encoded.length))
          .as("an uncompressed payload is the codec's bytes")
          .isEqualTo(bare);
    } else {
      assertThat(eligible).as("compressed although below the threshold").isTrue();
      assertThat(header.compressionId()).isEqualTo(compression.id());
      assertThat(encoded.length)
          .as("compressed only when smaller")
          .isLessThan(bare.length + header.payloadOffset());
      assertThat(header.dictionaryId())
          .isEqualTo(CompressionAccess.dictionary(compression).map(d -> d.id()).orElse(-1L));
    }
    assertThat(writer.decode(encoded)).isEqualTo(value);

    EnvelopeCodec<T> otherReader =
        EnvelopeCodec.builder(otherCodec)
            .alsoRead(codec)
            .compression(Compression.lz4())
            .dictionaries(dictionariesFor(compression))
            .build();
    assertThat(otherReader.decode(encoded))
        .as("read through a reader writing " + otherCodec.name())
        .isEqualTo(value);
    return encoded;
  }

  /**
   * The tiny test dictionary and the compression's own, which a reader writing lz4 must be told of.
   */
  private static DictionaryResolver dictionariesFor(Compression compression) {
    ZstdDictionary own = CompressionAccess.dictionary(compression).orElse(null);
    if (own == null || own.id() == TestDictionaries.TINY.id()) {
      return DictionaryResolver.of(TestDictionaries.TINY);
    }
    return DictionaryResolver.of(TestDictionaries.TINY, own);
  }
}
