package dev.stowage.board;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How the service stores and reads the feed. Chosen once at start ({@code stowage.board.mode}). */
public enum BoardMode {
  /** Stowage's path: JSON fragments in the feed, pages spliced from the cached bytes. */
  STOWAGE("stowage"),
  /**
   * The seed's JSON implementation: {@code ReactiveRedisTemplate}, decode and re-encode each item.
   */
  SEED_JSON("seed-json"),
  /** The seed's MessagePack implementation: as {@link #SEED_JSON}, with MessagePack members. */
  SEED_MSGPACK("seed-msgpack");

  private final String label;

  BoardMode(String label) {
    this.label = label;
  }

  /** The name used on the command line and in properties, such as {@code seed-json}. */
  public String label() {
    return label;
  }

  /**
   * Parses a label such as {@code seed-json} (case-insensitive).
   *
   * @throws IllegalArgumentException naming the accepted labels when {@code label} is none of them
   */
  public static BoardMode parse(String label) {
    for (BoardMode mode : values()) {
      if (mode.label.equalsIgnoreCase(label.trim()) || mode.name().equalsIgnoreCase(label.trim())) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "unknown board mode '"
            + label
            + "'; expected one of "
            + Arrays.stream(values()).map(m -> m.label).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return label.toLowerCase(Locale.ROOT);
  }
}
