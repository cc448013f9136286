package dev.stowage.cli.inspect;

import dev.stowage.Codec;
import dev.stowage.EnvelopeCodec;
import dev.stowage.compress.DictionaryResolver;
import java.util.Arrays;

/**
 * The decompressed payload of any envelope, whatever its codec: an {@link EnvelopeCodec} whose
 * codecs, one per id from 1 to 255, hand back their bytes untouched. Decompression, the dictionary
 * lookup and the size limit are the library's own, so the inspector reads exactly what a cache
 * would.
 */
final class EnvelopePayloads {
  private final EnvelopeCodec<byte[]> codec;

  EnvelopePayloads(DictionaryResolver dictionaries) {
    EnvelopeCodec.Builder<byte[]> builder = EnvelopeCodec.builder(new Bytes(1));
    for (int id = 2; id <= 255; id++) {
      builder.alsoRead(new Bytes(id));
    }
    if (dictionaries != null) {
      builder.dictionaries(dictionaries);
    }
    this.codec = builder.build();
  }

  /**
   * The payload of an envelope, decompressed.
   *
   * @throws dev.stowage.StowageException as {@link EnvelopeCodec#decode} does
   */
  byte[] payload(byte[] value) {
    return codec.decode(value);
  }

  private record Bytes(int id) implements Codec<byte[]> {
    @Override
    public byte[] encode(byte[] value) {
      return value.clone();
    }

    @Override
    public byte[] decode(byte[] data, int offset, int length) {
      return Arrays.copyOfRange(data, offset, offset + length);
    }
  }
}
