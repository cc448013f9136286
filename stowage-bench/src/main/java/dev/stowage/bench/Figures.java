package dev.stowage.bench;

import java.util.Arrays;

/** Arithmetic the benches share when they turn measurements into the figures of a row. */
public final class Figures {

  private Figures() {}

  /** {@code value} rounded half up to {@code decimals} decimal places. */
  public static double round(double value, int decimals) {
    double scale = Math.pow(10, decimals);
    return Math.round(value * scale) / scale;
  }

  /**
   * The median of {@code values} (the mean of the middle two for an even count).
   *
   * @throws IllegalArgumentException if there are none
   */
  public static double median(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("no values to take the median of");
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
