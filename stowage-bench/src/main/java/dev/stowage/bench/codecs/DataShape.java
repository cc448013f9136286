package dev.stowage.bench.codecs;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The records that table T3 encodes. */
public enum DataShape {
  /** The first seed's board record (15 fields). */
  BOARD("board"),
  /** The jvm-serializers media-content object. */
  MEDIA("media");

  private final String paramName;

  DataShape(String paramName) {
    this.paramName = paramName;
  }

  /** The name in results, on the command line and in JMH params. */
  public String paramName() {
    return paramName;
  }

  /**
   * The shape with this name.
   *
   * @throws IllegalArgumentException naming the valid choices, if there is none
   */
  public static DataShape forName(String name) {
    for (DataShape shape : values()) {
      if (shape.paramName.equalsIgnoreCase(name.strip())) {
        return shape;
      }
    }
    throw new IllegalArgumentException(
        "unknown data '"
            + name
            + "'; choose from "
            + Arrays.stream(values()).map(DataShape::paramName).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return paramName;
  }
}
