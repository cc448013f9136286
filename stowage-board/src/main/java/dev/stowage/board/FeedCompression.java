package dev.stowage.board;

import dev.stowage.Encoding;
import dev.stowage.compress.Compression;
import java.util.Locale;

/**
 * How stowage mode compresses the posts in its feed ({@code stowage.board.compression}, {@code
 * serve --compression}). Whichever it is, each post is stored as its JSON fragment inside a Stowage
 * envelope, and any post is read whatever wrote it: the envelope names its compression.
 */
public enum FeedCompression {
  /** Uncompressed JSON. */
  NONE("none"),
  /** zstd without a dictionary ({@link Compression#zstd()}). */
  ZSTD("zstd"),
  /**
   * Core's default: the standard compression until the feed has written 1,000 posts, then zstd with
   * a dictionary learned from them and recorded in {@link BoardKeys#LEARNED_DICTIONARY}, which
   * every process writing the feed adopts.
   */
  ZSTD_DICT("zstd-dict");

  private final String label;

  FeedCompression(String label) {
    this.label = label;
  }

  /** The name used on the command line and in properties, such as {@code zstd-dict}. */
  public String label() {
    return label;
  }

  /**
   * Parses {@code none}, {@code zstd} or {@code zstd-dict} (case-insensitive).
   *
   * @throws IllegalArgumentException naming the accepted values for anything else
   */
  public static FeedCompression parse(String text) {
    String wanted = text.trim().toLowerCase(Locale.ROOT);
    for (FeedCompression compression : values()) {
      if (compression.label.equals(wanted)) {
        return compression;
      }
    }
    throw new IllegalArgumentException(
        "unknown feed compression '" + text + "'; expected none, zstd or zstd-dict");
  }

  /** {@code encoding} compressing as this says. */
  <V> Encoding<V> apply(Encoding<V> encoding) {
    return switch (this) {
      case NONE -> encoding.compression(Compression.none());
      case ZSTD -> encoding.compression(Compression.zstd());
      case ZSTD_DICT -> encoding;
    };
  }
}
