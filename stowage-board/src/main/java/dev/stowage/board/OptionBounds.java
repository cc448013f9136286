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

  /**
   * {@code value}, a connection's bound of bytes unsent, which must be from 64 KiB to 1 GiB.
   *
   * @throws IllegalArgumentException naming the option, if it is outside that range
   */
  public static int unsentBytes(int value, String name) {
    if (value < 64 * 1024 || value > 1024 * 1024 * 1024) {
      throw new IllegalArgumentException(name + " must be from 65536 to 1073741824, got " + value);
    }
    return value;
  }
}
