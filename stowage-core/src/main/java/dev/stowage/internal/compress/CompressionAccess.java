package dev.stowage.internal.compress;

import dev.stowage.compress.Compression;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The internals' way to a {@link Compression}'s dictionary, which its public API shows only by id.
 * {@code Compression}'s class initializer installs the accessor, so that it is there before any
 * instance exists (the JDK's {@code SharedSecrets} pattern); the dictionary itself stays out of the
 * public API.
 */
public final class CompressionAccess {
  /** What {@code Compression} lends the internals. */
  public interface Accessor {
    /** The compression's dictionary, or null for a compression without one. */
    @Nullable ZstdDictionary dictionary(Compression compression);

    /** zstd with this dictionary at this level. */
    Compression zstd(ZstdDictionary dictionary, int level);
  }

  private static volatile @Nullable Accessor accessor;

  private CompressionAccess() {}

  /**
   * Installs the accessor: called once, by {@code Compression}'s class initializer.
   *
   * @throws IllegalStateException on a second call
   */
  public static synchronized void install(Accessor installed) {
    if (accessor != null) {
      throw new IllegalStateException("the Compression accessor is already installed");
    }
    accessor = installed;
  }

  /** The dictionary of a zstd-dict compression; empty for every other compression. */
  public static Optional<ZstdDictionary> dictionary(Compression compression) {
    return Optional.ofNullable(accessor().dictionary(compression));
  }

  /** zstd with a dictionary at {@code level}. */
  public static Compression zstd(ZstdDictionary dictionary, int level) {
    return accessor().zstd(dictionary, level);
  }

  /** zstd with a dictionary at {@link Compression#DEFAULT_DICTIONARY_ZSTD_LEVEL}. */
  public static Compression zstd(ZstdDictionary dictionary) {
    return zstd(dictionary, Compression.DEFAULT_DICTIONARY_ZSTD_LEVEL);
  }

  private static Accessor accessor() {
    Accessor installed = accessor;
    if (installed == null) {
      // Initializes Compression, whose class initializer installs the accessor.
      Compression.none();
      installed = accessor;
      if (installed == null) {
        throw new IllegalStateException("Compression did not install its accessor");
      }
    }
    return installed;
  }
}
