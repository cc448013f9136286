package dev.stowage.bench.nearcache;

import java.nio.charset.StandardCharsets;

/**
 * The names of the bench's items, made once so that no row pays for building them on each read:
 * item {@code i} is the Redis string {@code stowage-bench:nearcache:key:<i>}, and field {@code <i>}
 * of the hash {@code stowage-bench:nearcache:redisson-map} for Redisson's row.
 */
final class KeySpace {

  /** Every Redis key of the bench starts with this. */
  static final String PREFIX = "stowage-bench:nearcache:";

  /** The prefix of the items kept as Redis strings. */
  static final String STRING_PREFIX = PREFIX + "key:";

  /** The hash that Redisson's row keeps its own copy of the items in. */
  static final String HASH_KEY = PREFIX + "redisson-map";

  private final String[] suffixes;
  private final String[] keys;
  private final byte[][] keyBytes;

  KeySpace(int size) {
    suffixes = new String[size];
    keys = new String[size];
    keyBytes = new byte[size][];
    for (int i = 0; i < size; i++) {
      suffixes[i] = Integer.toString(i);
      keys[i] = STRING_PREFIX + suffixes[i];
      keyBytes[i] = keys[i].getBytes(StandardCharsets.UTF_8);
    }
  }

  int size() {
    return keys.length;
  }

  /** {@code <i>}: the key after the prefix, and the hash field. */
  String suffix(int index) {
    return suffixes[index];
  }

  /** The Redis key of item {@code index}. */
  String key(int index) {
    return keys[index];
  }

  /** The Redis key of item {@code index}, as UTF-8. */
  byte[] keyBytes(int index) {
    return keyBytes[index];
  }
}
