package dev.stowage.internal.compress;

import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeException;
import dev.stowage.StowageException;
import dev.stowage.internal.OptionalLibrary;
import dev.stowage.internal.format.CompressionIds;
import org.jspecify.annotations.Nullable;

/**
 * Decompresses the payload of any compression id, whatever the reader writes with. The libraries
 * are looked up on first use, so a reader that never meets lz4 never needs lz4-java. Thread-safe.
 */
public final class PayloadDecompressor {
  private final @Nullable DictionaryResolver resolver;
  private final Object zstdLock = new Object();
  private volatile @Nullable ZstdFrameDecompressor zstd;

  /**
   * @param resolver finds dictionaries by id, or {@code null} when none are configured
   */
  public PayloadDecompressor(@Nullable DictionaryResolver resolver) {
    this.resolver = resolver;
  }

  /**
   * Decompresses {@code length} bytes at {@code offset}, written with {@code compressionId} (not
   * none) and, for zstd-dict and zstd-dict-magicless, the dictionary {@code dictionaryId}.
   *
   * @throws EnvelopeException for a corrupt payload or one that exceeds {@code maxDecodedSize}
   * @throws DictionaryNotFoundException when the dictionary cannot be resolved
   * @throws dev.stowage.MissingLibraryException when the compression's library is absent
   */
  public byte[] decompress(
      int compressionId,
      long dictionaryId,
      byte[] source,
      int offset,
      int length,
      int maxDecodedSize) {
    return decompress(compressionId, dictionaryId, source, offset, length, maxDecodedSize, -1);
  }

  /**
   * As {@link #decompress(int, long, byte[], int, int, int)}, for a payload whose {@link
   * #declaredSize} was read already: {@code declared}, or -1 to read it again.
   */
  public byte[] decompress(
      int compressionId,
      long dictionaryId,
      byte[] source,
      int offset,
      int length,
      int maxDecodedSize,
      int declared) {
    switch (compressionId) {
      case CompressionIds.LZ4 -> {
        OptionalLibrary.LZ4.require();
        return Lz4BlockCodec.instance().decompress(source, offset, length, maxDecodedSize);
      }
      case CompressionIds.ZSTD -> {
        return zstdFrame(zstd(), source, offset, length, maxDecodedSize, declared, -1, false);
      }
      case CompressionIds.ZSTD_DICT, CompressionIds.ZSTD_DICT_MAGICLESS -> {
        ZstdFrameDecompressor frames = zstd();
        if (!frames.hasDictionary(dictionaryId)) {
          frames.addDictionary(resolve(dictionaryId));
        }
        return zstdFrame(
            frames,
            source,
            offset,
            length,
            maxDecodedSize,
            declared,
            dictionaryId,
            compressionId == CompressionIds.ZSTD_DICT_MAGICLESS);
      }
      default -> throw new EnvelopeException("unknown compression id " + compressionId);
    }
  }

  /**
   * The size that the payload of {@code length} bytes at {@code offset}, written with {@code
   * compressionId} (not none), declares it decompresses to; the payload is not decompressed.
   *
   * @throws EnvelopeException for a malformed size or one that exceeds {@code maxDecodedSize}
   * @throws dev.stowage.MissingLibraryException when the compression's library is absent
   */
  public int declaredSize(
      int compressionId, byte[] source, int offset, int length, int maxDecodedSize) {
    return switch (compressionId) {
      case CompressionIds.LZ4 -> {
        OptionalLibrary.LZ4.require();
        yield (int) Lz4BlockCodec.declaredSize(source, offset, length, maxDecodedSize);
      }
      case CompressionIds.ZSTD, CompressionIds.ZSTD_DICT, CompressionIds.ZSTD_DICT_MAGICLESS -> {
        OptionalLibrary.ZSTD.require();
        yield (int)
            ZstdFrameDecompressor.declaredSize(
                source,
                offset,
                length,
                maxDecodedSize,
                compressionId == CompressionIds.ZSTD_DICT_MAGICLESS);
      }
      default -> throw new EnvelopeException("unknown compression id " + compressionId);
    };
  }

  private static byte[] zstdFrame(
      ZstdFrameDecompressor frames,
      byte[] source,
      int offset,
      int length,
      int maxDecodedSize,
      int declared,
      long dictionaryId,
      boolean magicless) {
    return declared < 0
        ? frames.decompress(source, offset, length, maxDecodedSize, dictionaryId, magicless)
        : frames.decompressDeclared(source, offset, length, declared, dictionaryId, magicless);
  }

  private ZstdDictionary resolve(long id) {
    if (resolver == null) {
      throw (DictionaryNotFoundException)
          new DictionaryNotFoundException(id)
              .addContext("this reader has no dictionaries configured");
    }
    ZstdDictionary dictionary;
    try {
      dictionary = resolver.resolve(id);
    } catch (StowageException e) {
      throw e;
    } catch (RuntimeException e) {
      DictionaryNotFoundException notFound = new DictionaryNotFoundException(id);
      notFound.initCause(e);
      throw (DictionaryNotFoundException)
          notFound.addContext("the dictionary resolver failed: " + e);
    }
    if (dictionary == null) {
      throw new DictionaryNotFoundException(id);
    }
    if (dictionary.id() != id) {
      throw new EnvelopeException(
          "the dictionary resolver returned dictionary "
              + dictionary.hexId()
              + " when asked for "
              + String.format("%08x", id));
    }
    return dictionary;
  }

  private ZstdFrameDecompressor zstd() {
    ZstdFrameDecompressor frames = zstd;
    if (frames == null) {
      OptionalLibrary.ZSTD.require();
      synchronized (zstdLock) {
        frames = zstd;
        if (frames == null) {
          frames = new ZstdFrameDecompressor();
          zstd = frames;
        }
      }
    }
    return frames;
  }
}
