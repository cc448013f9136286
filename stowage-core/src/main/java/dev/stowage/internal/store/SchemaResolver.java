package dev.stowage.internal.store;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.SchemaNotFoundException;
import dev.stowage.Stowage;
import dev.stowage.internal.format.Schemas;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds the writer schema that a value's envelope names by its fingerprint, for an {@link
 * Codec.Evolving} reading a value written with another schema. The caches and feeds of a {@link
 * Stowage} resolve them from Redis, where it keeps them under {@code stowage:schema:}.
 * Implementations must be thread-safe. Part of the internal API: may change without notice.
 */
@FunctionalInterface
public interface SchemaResolver {

  /**
   * The schema whose {@link Schemas#fingerprint(String)} is {@code fingerprint}.
   *
   * @throws SchemaNotFoundException if there is none
   */
  String resolve(int fingerprint);

  /** A resolver over a fixed set of schemas. */
  static SchemaResolver of(String... schemas) {
    Map<Integer, String> byFingerprint = new HashMap<>();
    for (String schema : schemas) {
      byFingerprint.put(Schemas.fingerprint(requireNonNull(schema, "schema")), schema);
    }
    Map<Integer, String> fixed = Map.copyOf(byFingerprint);
    return fingerprint -> {
      String schema = fixed.get(fingerprint);
      if (schema == null) {
        throw new SchemaNotFoundException(fingerprint);
      }
      return schema;
    };
  }
}
