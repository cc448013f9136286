package dev.stowage.internal.compress;

import dev.stowage.compress.Compression;
import dev.stowage.internal.OptionalLibrary;
import dev.stowage.internal.format.CompressionIds;
import org.jspecify.annotations.Nullable;

/** Builds the compressor for a {@link Compression}, after checking its library is present. */
public final class PayloadCompressors {
  private PayloadCompressors() {}

  /**
   * The compressor for writing with {@code compression}, or {@code null} for none.
   *
   * @throws dev.stowage.MissingLibraryException if the compression's library is absent
   */
  public static @Nullable PayloadCompressor forWriting(Compression compression) {
    return switch (compression.id()) {
      case CompressionIds.NONE -> null;
      case CompressionIds.LZ4 -> {
        OptionalLibrary.LZ4.require();
        yield Lz4BlockCodec.instance();
      }
      case CompressionIds.ZSTD, CompressionIds.ZSTD_DICT, CompressionIds.ZSTD_DICT_MAGICLESS -> {
        OptionalLibrary.ZSTD.require();
        yield new ZstdFrameCompressor(
            compression.level(),
            CompressionAccess.dictionary(compression).orElse(null),
            compression.isMagicless());
      }
      default -> throw new IllegalArgumentException("unknown compression id " + compression.id());
    };
  }
}
