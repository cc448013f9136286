package dev.stowage.internal;

import dev.stowage.MissingLibraryException;
import org.jspecify.annotations.Nullable;

/**
 * A library that core declares optional, detected by one of its classes without initialising it.
 * Thread-safe; the answer is computed once.
 */
public final class OptionalLibrary {
  /** zstd-jni, for zstd and zstd-dict compression and dictionary training. */
  public static final OptionalLibrary ZSTD =
      new OptionalLibrary(
          "zstd compression", "com.github.luben.zstd.Zstd", "com.github.luben:zstd-jni");

  /** lz4-java, for lz4 compression. */
  public static final OptionalLibrary LZ4 =
      new OptionalLibrary("lz4 compression", "net.jpountz.lz4.LZ4Factory", "at.yawk.lz4:lz4-java");

  private final String feature;
  private final String className;
  private final String coordinates;
  private volatile @Nullable Boolean present;

  public OptionalLibrary(String feature, String className, String coordinates) {
    this.feature = feature;
    this.className = className;
    this.coordinates = coordinates;
  }

  /** Whether the library's marker class can be loaded. */
  public boolean isPresent() {
    Boolean known = present;
    if (known == null) {
      known = load();
      present = known;
    }
    return known;
  }

  /**
   * Returns normally when the library is present.
   *
   * @throws MissingLibraryException naming the Maven coordinates when it is not
   */
  public void require() {
    if (!isPresent()) {
      throw new MissingLibraryException(feature, coordinates);
    }
  }

  /** The Maven coordinates, {@code groupId:artifactId}. */
  public String coordinates() {
    return coordinates;
  }

  private boolean load() {
    try {
      Class.forName(className, false, OptionalLibrary.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
