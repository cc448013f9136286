package dev.stowage.internal.compress;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.OptionalLibrary;
import dev.stowage.internal.format.CompressionIds;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A zstd dictionary, named by its content: the {@linkplain #id() id} is the first four bytes of the
 * SHA-256 of the dictionary bytes, read as an unsigned big-endian number. The same bytes always get
 * the same id, so a dictionary stored under its id never changes.
 *
 * <p>Dictionaries come from {@link #train} (zstd's trainer over sample values of one type), or from
 * stored bytes through {@link #of(byte[])}; zstd also accepts any bytes as a raw-content
 * dictionary. Instances are immutable and thread-safe.
 */
public final class ZstdDictionary {
  /** The smallest dictionary {@link #train} makes: zstd's own minimum. */
  public static final int MIN_TRAINED_SIZE = 256;

  /**
   * The fewest samples {@link #train} accepts. zstd's trainer itself refuses ten or fewer; a useful
   * dictionary wants a few thousand.
   */
  public static final int MIN_SAMPLES = 16;

  private final byte[] bytes;
  private final long id;

  private ZstdDictionary(byte[] bytes) {
    this.bytes = bytes;
    this.id = idOf(bytes);
  }

  /**
   * A dictionary of these bytes (copied).
   *
   * @throws IllegalArgumentException if {@code bytes} is empty
   */
  public static ZstdDictionary of(byte[] bytes) {
    requireNonNull(bytes, "bytes");
    if (bytes.length == 0) {
      throw new IllegalArgumentException("a zstd dictionary cannot be empty");
    }
    return new ZstdDictionary(bytes.clone());
  }

  /**
   * Returns {@code dictionarySize} if {@link #train} accepts it.
   *
   * @throws IllegalArgumentException if it is below {@link #MIN_TRAINED_SIZE}
   */
  public static int checkTrainedSize(int dictionarySize) {
    if (dictionarySize < MIN_TRAINED_SIZE) {
      throw new IllegalArgumentException(
          "dictionarySize must be at least " + MIN_TRAINED_SIZE + " bytes, got " + dictionarySize);
    }
    return dictionarySize;
  }

  /**
   * Trains a dictionary of at most {@code dictionarySize} bytes on samples of the values it will
   * compress (a few thousand encoded records of one type work well).
   *
   * @throws IllegalArgumentException if there are fewer than {@link #MIN_SAMPLES} non-empty samples
   *     or {@code dictionarySize} is below {@link #MIN_TRAINED_SIZE}
   * @throws dev.stowage.StowageException if zstd cannot train on these samples, for example because
   *     they are too few or too small for the dictionary size
   * @throws dev.stowage.MissingLibraryException if zstd-jni is absent
   */
  public static ZstdDictionary train(Iterable<byte[]> samples, int dictionarySize) {
    requireNonNull(samples, "samples");
    checkTrainedSize(dictionarySize);
    OptionalLibrary.ZSTD.require();
    return new ZstdDictionary(ZstdDictionaryTrainer.train(samples, dictionarySize, MIN_SAMPLES));
  }

  /** The id that {@code bytes} would have as a dictionary. */
  public static long idOf(byte[] bytes) {
    requireNonNull(bytes, "bytes");
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    return ((digest[0] & 0xFFL) << 24)
        | ((digest[1] & 0xFFL) << 16)
        | ((digest[2] & 0xFFL) << 8)
        | (digest[3] & 0xFFL);
  }

  /** The id as eight lower-case hex digits, as in the Redis key {@code stowage:dict:<hexId>}. */
  public static String hexId(long id) {
    return CompressionIds.dictionaryHex(id);
  }

  /** A copy of the dictionary bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The size in bytes. */
  public int size() {
    return bytes.length;
  }

  /** The content-addressed id, 0 to {@code 0xFFFFFFFF}. */
  public long id() {
    return id;
  }

  /** The id as eight lower-case hex digits. */
  public String hexId() {
    return hexId(id);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ZstdDictionary that
        && id == that.id
        && Arrays.equals(bytes, that.bytes);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(id);
  }

  @Override
  public String toString() {
    return "ZstdDictionary[" + hexId() + ", " + bytes.length + " bytes]";
  }
}
