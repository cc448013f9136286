package dev.stowage.bench.codecs;

/**
 * Each codec's form of each data shape. Transitional: the built-in codecs
 * ({@code dev.stowage.codec.Codecs}) and the sample records are being written at the same time; until
 * they land, every configuration fails with a message saying so.
 */
final class CodecForms {

  private CodecForms() {}

  static CodecForms of(CodecUnderTest codec, DataShape data) {
    throw new IllegalStateException(
        "bench codecs cannot build " + codec + " on " + data + " yet: it needs dev.stowage.codec.Codecs and the sample records");
  }

  CodecFixture<?, ?> fixture(PayloadVariant variant, int records, int samples) {
    throw new IllegalStateException("unreachable");
  }
}
