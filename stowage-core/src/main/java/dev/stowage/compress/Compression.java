package dev.stowage.compress;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.format.CompressionIds;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * How a cache or feed compresses the values it writes: not at all, with LZ4, with zstd, or with
 * zstd and a trained dictionary. Reading never depends on this setting: every stored value names
 * its own compression.
 *
 * <p>A value whose encoded size is below {@link #minSize()} is stored uncompressed, and so is a
 * value that compression would not make smaller.
 *
 * <pre>{@code
 * Compression.zstd(dictionary).minSize(32)
 * }</pre>
 *
 * <p>Instances are immutable and thread-safe. The libraries are checked when a cache or feed is
 * built, not here.
 */
public final class Compression {
  /**
   * Values smaller than this many bytes are stored uncompressed, unless {@link #minSize(int)} says
   * otherwise.
   */
  public static final int DEFAULT_MIN_SIZE = 64;

  /** The zstd level used without a dictionary when none is given. */
  public static final int DEFAULT_ZSTD_LEVEL = 3;

  /**
   * The zstd level used with a dictionary when none is given, and so by every cache and feed once
   * it has learned one. On values of a few hundred bytes zstd's time goes into the work it does for
   * every frame, and level 2 does less of it than 3 while writing frames about as small.
   */
  public static final int DEFAULT_DICTIONARY_ZSTD_LEVEL = 2;

  /** The lowest zstd level (zstd's fastest negative level). */
  public static final int MIN_ZSTD_LEVEL = -131072;

  /** The highest zstd level. */
  public static final int MAX_ZSTD_LEVEL = 22;

  static {
    CompressionAccess.install(
        new CompressionAccess.Accessor() {
          @Override
          public @Nullable ZstdDictionary dictionary(Compression compression) {
            return compression.dictionary;
          }

          @Override
          public Compression zstd(ZstdDictionary dictionary, int level) {
            return withDictionary(requireNonNull(dictionary, "dictionary"), level);
          }
        });
  }

  private static final Compression NONE =
      new Compression(CompressionIds.NONE, 0, null, DEFAULT_MIN_SIZE);

  private final int id;
  private final int level;
  private final @Nullable ZstdDictionary dictionary;
  private final int minSize;

  private Compression(int id, int level, @Nullable ZstdDictionary dictionary, int minSize) {
    this.id = id;
    this.level = level;
    this.dictionary = dictionary;
    this.minSize = minSize;
  }

  /** No compression. */
  public static Compression none() {
    return NONE;
  }

  /**
   * Values smaller than this many bytes are stored uncompressed by {@link #standard()}: without a
   * dictionary, zstd saves little on small values and costs more time than encoding them.
   */
  public static final int STANDARD_MIN_SIZE = 1024;

  /**
   * The standard compression: {@link #zstd()} at level {@value #DEFAULT_ZSTD_LEVEL} for values of
   * {@value #STANDARD_MIN_SIZE} bytes or more, and none below. What an encoding gets when it
   * chooses nothing; caches and feeds start with it and then learn a dictionary from their own
   * values (see {@code Encoding#learnDictionary}), after which small values are compressed too.
   *
   * <p>Values under the minimum size are stored uncompressed: without a dictionary, zstd saves
   * little on a value of a few hundred bytes and costs more time than encoding it, while with a
   * dictionary trained on the application's values it shrinks them well. The standard cannot
   * include a dictionary, as one must be trained on the application's own values first.
   */
  public static Compression standard() {
    return zstd().minSize(STANDARD_MIN_SIZE);
  }

  /** LZ4 block compression: fast, modest ratio. Needs {@code at.yawk.lz4:lz4-java}. */
  public static Compression lz4() {
    return new Compression(CompressionIds.LZ4, 0, null, DEFAULT_MIN_SIZE);
  }

  /** zstd at {@link #DEFAULT_ZSTD_LEVEL}. Needs {@code com.github.luben:zstd-jni}. */
  public static Compression zstd() {
    return zstd(DEFAULT_ZSTD_LEVEL);
  }

  /**
   * zstd at {@code level}.
   *
   * @throws IllegalArgumentException if the level is outside {@link #MIN_ZSTD_LEVEL} to {@link
   *     #MAX_ZSTD_LEVEL}
   */
  public static Compression zstd(int level) {
    return new Compression(CompressionIds.ZSTD, checkLevel(level), null, DEFAULT_MIN_SIZE);
  }

  /**
   * zstd with a dictionary of these bytes, at {@link #DEFAULT_DICTIONARY_ZSTD_LEVEL}: for example
   * one that {@code stowage dict train} wrote, or any bytes as a raw-content dictionary.
   *
   * @throws IllegalArgumentException if {@code dictionary} is empty
   */
  public static Compression zstd(byte[] dictionary) {
    return zstd(dictionary, DEFAULT_DICTIONARY_ZSTD_LEVEL);
  }

  /**
   * zstd with a dictionary of these bytes (copied), at {@code level}. Values record the
   * dictionary's id (the first four bytes of the SHA-256 of its bytes); a cache or feed using this
   * compression keeps the dictionary in Redis, where every reader finds it by that id. Frames are
   * written without zstd's magic number, 4 bytes less per value; {@link #magicless(boolean)
   * magicless(false)} writes them whole, for readers older than that format.
   *
   * @throws IllegalArgumentException if {@code dictionary} is empty, or the level is outside {@link
   *     #MIN_ZSTD_LEVEL} to {@link #MAX_ZSTD_LEVEL}
   */
  public static Compression zstd(byte[] dictionary, int level) {
    return withDictionary(ZstdDictionary.of(requireNonNull(dictionary, "dictionary")), level);
  }

  /**
   * Trains a zstd dictionary of at most {@code dictionarySize} bytes on samples of the values it
   * will compress, as a codec encodes them (a few thousand values of one type work well), and
   * returns its bytes for {@link #zstd(byte[])}. Caches and feeds learn theirs by themselves; this
   * is for a dictionary trained once, offline, and pinned.
   *
   * @throws IllegalArgumentException if there are fewer than {@link
   *     dev.stowage.Encoding#MIN_LEARNING_SAMPLES} non-empty samples or {@code dictionarySize} is
   *     below {@link dev.stowage.Encoding#MIN_DICTIONARY_SIZE}
   * @throws dev.stowage.StowageException if zstd cannot train on these samples, for example because
   *     they are too few or too small for the dictionary size
   * @throws dev.stowage.MissingLibraryException if zstd-jni is absent
   */
  public static byte[] trainDictionary(Iterable<byte[]> samples, int dictionarySize) {
    return ZstdDictionary.train(samples, dictionarySize).bytes();
  }

  private static Compression withDictionary(ZstdDictionary dictionary, int level) {
    return new Compression(
        CompressionIds.ZSTD_DICT_MAGICLESS, checkLevel(level), dictionary, DEFAULT_MIN_SIZE);
  }

  /**
   * A copy of this dictionary compression that writes its zstd frames without zstd's 4-byte magic
   * number (the default) or with it. The envelope already says the payload is a zstd frame, so the
   * magic tells a reader nothing, and a small value is a few percent smaller without it. Every
   * reader of this version reads both; readers that predate the magicless id read only frames with
   * the magic, so a rolling deploy that keeps such readers writes with {@code magicless(false)}
   * until they are gone.
   *
   * @throws IllegalStateException if this compression has no dictionary
   */
  public Compression magicless(boolean magicless) {
    if (dictionary == null) {
      throw new IllegalStateException(
          "only a zstd compression with a dictionary can drop the frame's magic number; "
              + this
              + " has none");
    }
    return new Compression(
        magicless ? CompressionIds.ZSTD_DICT_MAGICLESS : CompressionIds.ZSTD_DICT,
        level,
        dictionary,
        minSize);
  }

  /**
   * Whether zstd frames are written without their magic number: true for a dictionary compression
   * unless told otherwise.
   */
  public boolean isMagicless() {
    return id == CompressionIds.ZSTD_DICT_MAGICLESS;
  }

  /**
   * A copy of this compression that stores values smaller than {@code minSize} bytes uncompressed.
   *
   * @throws IllegalArgumentException if {@code minSize} is negative
   */
  public Compression minSize(int minSize) {
    if (minSize < 0) {
      throw new IllegalArgumentException("minSize must be 0 or more, got " + minSize);
    }
    return new Compression(id, level, dictionary, minSize);
  }

  /** The smallest encoded size, in bytes, that is compressed. */
  public int minSize() {
    return minSize;
  }

  /**
   * The id recorded for values this compression shrinks, as {@link dev.stowage.Inspector} reports
   * it: 0 none, 1 lz4, 2 zstd, 3 zstd-dict, 4 zstd-dict-magicless.
   */
  public int id() {
    return id;
  }

  /** The name, such as {@code "zstd-dict-magicless"}. */
  public String name() {
    return CompressionIds.name(id);
  }

  /** The zstd level, or 0 for none and lz4. */
  public int level() {
    return level;
  }

  /**
   * The id of the zstd dictionary, as values name it and {@link dev.stowage.Inspector#hexId} shows
   * it; present only for zstd-dict and zstd-dict-magicless.
   */
  public OptionalLong dictionaryId() {
    return dictionary == null ? OptionalLong.empty() : OptionalLong.of(dictionary.id());
  }

  private static int checkLevel(int level) {
    if (level < MIN_ZSTD_LEVEL || level > MAX_ZSTD_LEVEL) {
      throw new IllegalArgumentException(
          "zstd level must be " + MIN_ZSTD_LEVEL + " to " + MAX_ZSTD_LEVEL + ", got " + level);
    }
    return level;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Compression that
        && id == that.id
        && level == that.level
        && minSize == that.minSize
        && Objects.equals(dictionary, that.dictionary);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, level, dictionary, minSize);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(name());
    if (id == CompressionIds.ZSTD || CompressionIds.hasDictionary(id)) {
      text.append("(level ").append(level);
      if (dictionary != null) {
        text.append(", dictionary ").append(dictionary.hexId());
      }
      text.append(')');
    }
    if (id != CompressionIds.NONE) {
      text.append(" from ").append(minSize).append(" bytes");
    }
    return text.toString();
  }
}
