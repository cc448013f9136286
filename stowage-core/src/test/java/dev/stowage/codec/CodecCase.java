package dev.stowage.codec;

import dev.stowage.Codec;
import java.util.List;
import java.util.function.Supplier;

/**
 * One codec under test with values of its type: its generated values, its edge cases, and whether a
 * truncated encoding can still be a valid value (formats that are not self-delimiting).
 */
record CodecCase<T>(
    String name,
    Supplier<Codec<T>> codec,
    List<T> generated,
    List<T> edgeCases,
    boolean prefixesMayDecode) {

  @Override
  public String toString() {
    return name;
  }
}
