package dev.stowage.bench;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Why a row is in a results table: the seed's own setup, a peer, Stowage, or a hard limit. */
public enum RowRole {
  /** The configuration that a seed published. */
  SEED,
  /** An alternative that users would pick instead. */
  PEER,
  /** Stowage's own configuration. */
  STOWAGE,
  /** A floor or ceiling that no client can beat, such as raw pipelined bytes. */
  LIMIT;

  /** The lower-case name written to the results JSON, such as {@code "seed"}. */
  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The role with this JSON name.
   *
   * @throws IllegalArgumentException if no role has that name
   */
  @JsonCreator
  public static RowRole fromJson(String name) {
    for (RowRole role : values()) {
      if (role.jsonName().equals(name)) {
        return role;
      }
    }
    throw new IllegalArgumentException(
        "unknown row role '" + name + "'; expected seed, peer, stowage or limit");
  }
}
