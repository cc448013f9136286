package dev.stowage.internal.compress;

import com.github.luben.zstd.ZstdDictTrainer;
import dev.stowage.StowageException;
import dev.stowage.internal.OptionalLibrary;
import java.util.ArrayList;
import java.util.List;

/**
 * Trains zstd dictionaries with zstd-jni. Load only after {@link OptionalLibrary#ZSTD} is present.
 */
public final class ZstdDictionaryTrainer {
  private ZstdDictionaryTrainer() {}

  /**
   * The bytes of a dictionary of at most {@code dictionarySize} bytes trained on {@code samples}.
   *
   * @throws IllegalArgumentException with fewer than {@code minSamples} non-empty samples
   * @throws StowageException when zstd's trainer fails
   */
  public static byte[] train(Iterable<byte[]> samples, int dictionarySize, int minSamples) {
    List<byte[]> kept = new ArrayList<>();
    long total = 0;
    for (byte[] sample : samples) {
      if (sample == null) {
        throw new NullPointerException("samples contains null");
      }
      if (sample.length > 0) {
        kept.add(sample);
        total += sample.length;
      }
    }
    if (kept.size() < minSamples) {
      throw new IllegalArgumentException(
          "training a zstd dictionary needs at least "
              + minSamples
              + " non-empty samples, got "
              + kept.size()
              + "; a few thousand values of one type work best");
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "training samples total " + total + " bytes, more than 2 GiB");
    }
    ZstdDictTrainer trainer = new ZstdDictTrainer((int) total, dictionarySize);
    for (byte[] sample : kept) {
      trainer.addSample(sample);
    }
    try {
      return trainer.trainSamples();
    } catch (RuntimeException e) {
      throw new StowageException(
          "zstd could not train a "
              + dictionarySize
              + "-byte dictionary on "
              + kept.size()
              + " samples ("
              + total
              + " bytes): "
              + e.getMessage()
              + "; give more samples, or ask for a smaller dictionary",
          e);
    }
  }
}
