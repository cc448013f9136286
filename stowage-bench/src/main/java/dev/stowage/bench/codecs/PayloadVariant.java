package dev.stowage.bench.codecs;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How a codec's bytes are stored: bare, or inside Stowage's envelope with one of the compressions.
 * The name is the {@code compression} param of a T3 results row.
 */
public enum PayloadVariant {
  /** The codec's own bytes, with no envelope. */
  BARE("bare"),
  /** The envelope, uncompressed. */
  NONE("none"),
  /** The envelope with lz4. */
  LZ4("lz4"),
  /** The envelope with zstd. */
  ZSTD("zstd"),
  /** The envelope with zstd and a dictionary trained on other records of the same shape. */
  ZSTD_DICT("zstd-dict");

  private final String paramName;

  PayloadVariant(String paramName) {
    this.paramName = paramName;
  }

  /** The name in results and JMH params, such as {@code "zstd-dict"}. */
  public String paramName() {
    return paramName;
  }

  /** Whether the value is wrapped in the envelope. */
  public boolean enveloped() {
    return this != BARE;
  }

  /**
   * The variant with this name.
   *
   * @throws IllegalArgumentException naming the valid choices, if there is none
   */
  public static PayloadVariant forName(String name) {
    for (PayloadVariant variant : values()) {
      if (variant.paramName.equalsIgnoreCase(name.strip())) {
        return variant;
      }
    }
    throw new IllegalArgumentException(
        "unknown compression '"
            + name
            + "'; choose from "
            + Arrays.stream(values())
                .map(PayloadVariant::paramName)
                .collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return paramName;
  }
}
