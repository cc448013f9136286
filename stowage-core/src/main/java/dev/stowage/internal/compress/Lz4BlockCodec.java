package dev.stowage.internal.compress;

import dev.stowage.EnvelopeException;
import dev.stowage.StowageException;
import dev.stowage.internal.OptionalLibrary;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.UnsignedVarint;
import java.util.Arrays;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * The lz4 payload: an unsigned varint of the original length, then one LZ4 block. Decompression
 * uses lz4-java's safe decompressor into a destination no larger than the declared length, which is
 * checked against the limit first. Load this class only after {@link OptionalLibrary#LZ4} is
 * present. Thread-safe.
 */
public final class Lz4BlockCodec implements PayloadCompressor {
  private static final Lz4BlockCodec INSTANCE = new Lz4BlockCodec();

  private final LZ4Compressor compressor;
  private final LZ4SafeDecompressor decompressor;

  private Lz4BlockCodec() {
    LZ4Factory factory = LZ4Factory.fastestInstance();
    this.compressor = factory.fastCompressor();
    this.decompressor = factory.safeDecompressor();
  }

  /** The shared instance; requires lz4-java. */
  public static Lz4BlockCodec instance() {
    return INSTANCE;
  }

  @Override
  public int compressionId() {
    return CompressionIds.LZ4;
  }

  @Override
  public long dictionaryId() {
    return -1;
  }

  @Override
  public byte[] compress(byte[] data) {
    int prefix = UnsignedVarint.size(data.length);
    byte[] out = new byte[prefix + compressor.maxCompressedLength(data.length)];
    UnsignedVarint.write(data.length, out, 0);
    int written;
    try {
      written = compressor.compress(data, 0, data.length, out, prefix, out.length - prefix);
    } catch (RuntimeException e) {
      throw new StowageException("lz4 compression failed: " + e.getMessage(), e);
    }
    return Arrays.copyOf(out, prefix + written);
  }

  /**
   * The original length the payload at {@code offset} declares.
   *
   * @throws EnvelopeException if it is malformed or above {@code maxDecodedSize}
   */
  public static long declaredSize(byte[] source, int offset, int length, int maxDecodedSize) {
    long declared =
        UnsignedVarint.read(
            source, offset, offset + length, Integer.MAX_VALUE, "lz4 original length");
    if (declared > maxDecodedSize) {
      throw new EnvelopeException(
          "lz4 payload declares "
              + declared
              + " bytes, more than maxDecodedSize "
              + maxDecodedSize);
    }
    return declared;
  }

  /**
   * Decompresses the payload at {@code offset}.
   *
   * @throws EnvelopeException if the declared length is above {@code maxDecodedSize}, or the block
   *     is corrupt, or it decodes to another length than declared
   */
  public byte[] decompress(byte[] source, int offset, int length, int maxDecodedSize) {
    int end = offset + length;
    long declared = declaredSize(source, offset, length, maxDecodedSize);
    int blockStart = offset + UnsignedVarint.size(declared);
    byte[] out = new byte[(int) declared];
    int produced;
    try {
      produced = decompressor.decompress(source, blockStart, end - blockStart, out, 0, out.length);
    } catch (RuntimeException e) {
      throw new EnvelopeException(
          "corrupt lz4 payload: " + e.getMessage() + " (declared length " + declared + ")", e);
    }
    if (produced != declared) {
      throw new EnvelopeException(
          "lz4 payload decoded to " + produced + " bytes but declares " + declared);
    }
    return out;
  }
}
