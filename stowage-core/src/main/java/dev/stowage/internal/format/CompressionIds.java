package dev.stowage.internal.format;

import dev.stowage.compress.Compression;

/**
 * The compression ids that the envelope records in its fourth byte. These numbers are part of the
 * wire format: they never change meaning.
 */
public final class CompressionIds {
  /** The payload is stored as the codec wrote it. */
  public static final int NONE = 0;

  /** The payload is an unsigned varint of the original length followed by one LZ4 block. */
  public static final int LZ4 = 1;

  /** The payload is one zstd frame that declares its content size. */
  public static final int ZSTD = 2;

  /**
   * The payload is one zstd frame compressed with a dictionary, whose id the envelope carries as a
   * varint after the compression id.
   */
  public static final int ZSTD_DICT = 3;

  /**
   * As {@link #ZSTD_DICT}, but the frame is written without zstd's 4-byte magic number (zstd's
   * magicless format): the bytes after the magic of a standard frame. What a dictionary compression
   * writes unless told otherwise ({@link Compression#magicless(boolean)}).
   */
  public static final int ZSTD_DICT_MAGICLESS = 4;

  private static final String[] NAMES = {"none", "lz4", "zstd", "zstd-dict", "zstd-dict-magicless"};

  private CompressionIds() {}

  /** Whether {@code id} is one of the ids above. */
  public static boolean isKnown(int id) {
    return id >= 0 && id < NAMES.length;
  }

  /** Whether values of compression {@code id} carry a dictionary id in their header. */
  public static boolean hasDictionary(int id) {
    return id == ZSTD_DICT || id == ZSTD_DICT_MAGICLESS;
  }

  /** The name of an id, such as {@code "zstd-dict"}, or {@code "unknown-<id>"}. */
  public static String name(int id) {
    return isKnown(id) ? NAMES[id] : "unknown-" + id;
  }

  /**
   * A dictionary id as eight lower-case hex digits, as in its Redis key {@code stowage:dict:<hex>}.
   */
  public static String dictionaryHex(long id) {
    String hex = Long.toHexString(id);
    return hex.length() >= 8 ? hex : "00000000".substring(hex.length()) + hex;
  }
}
