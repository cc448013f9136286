package dev.stowage.compress;

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

  private static final String[] NAMES = {"none", "lz4", "zstd", "zstd-dict"};

  private CompressionIds() {}

  /** Whether {@code id} is one of the ids above. */
  public static boolean isKnown(int id) {
    return id >= 0 && id < NAMES.length;
  }

  /** The name of an id, such as {@code "zstd-dict"}, or {@code "unknown-<id>"}. */
  public static String name(int id) {
    return isKnown(id) ? NAMES[id] : "unknown-" + id;
  }
}
