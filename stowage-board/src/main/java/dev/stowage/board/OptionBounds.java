package dev.stowage.board;

import java.time.Duration;
import java.util.Objects;

/** The checks every option of the HTTP and TCP endpoints goes through, with one wording. */
public final class OptionBounds {
  private OptionBounds() {}

  /**
   * {@code value}, which must be positive.
   *
   * @throws IllegalArgumentException naming the option, if it is zero or negative
   */
  public static Duration positive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
    return value;
  }

  /**
   * {@code value}, which must be at least 1.
   *
   * @throws IllegalArgumentException naming the option, if it is below 1
   */
  public static int atLeastOne(int value, String name) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1, got " + value);
    }
    return value;
  }
}
