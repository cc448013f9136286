package dev.stowage.cli.inspect;

import dev.stowage.EnvelopeCodec;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.DictionaryResolver;

/**
 * The decompressed payload of any envelope, whatever its codec, through {@link
 * EnvelopeCodec#decodePayload}: decompression, the dictionary lookup and the size limit are the
 * library's own, so the inspector reads exactly what a cache would.
 */
final class EnvelopePayloads {
  private final EnvelopeCodec<String> codec;

  EnvelopePayloads(DictionaryResolver dictionaries) {
    // The codec is never used: decodePayload reads any codec id.
    EnvelopeCodec.Builder<String> builder = EnvelopeCodec.builder(Codecs.string());
    if (dictionaries != null) {
      builder.dictionaries(dictionaries);
    }
    this.codec = builder.build();
  }

  /**
   * The payload of an envelope, decompressed.
   *
   * @throws dev.stowage.StowageException as {@link EnvelopeCodec#decodePayload} does
   */
  byte[] payload(byte[] value) {
    return codec.decodePayload(value);
  }
}
