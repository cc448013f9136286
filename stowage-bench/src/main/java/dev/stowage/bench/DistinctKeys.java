package dev.stowage.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Counts distinct keys over the pages of a {@code SCAN}, which may return a key more than once
 * (while Redis rehashes its keyspace, after many keys were deleted or added). Each key is kept as a
 * 64-bit fingerprint (its {@code hashCode} and its CRC-32C), so that millions of keys take 8 bytes
 * each: two of 15,000,000 keys share a fingerprint with a probability of about 6 in a million,
 * which would count one key too few.
 */
final class DistinctKeys {
  private long[] fingerprints = new long[1024];
  private int size;

  /** Adds one page of keys. */
  void add(List<String> keys) {
    for (String key : keys) {
      if (size == fingerprints.length) {
        fingerprints = Arrays.copyOf(fingerprints, fingerprints.length * 2);
      }
      fingerprints[size++] = fingerprint(key);
    }
  }

  /** How many distinct keys were added. */
  long count() {
    Arrays.sort(fingerprints, 0, size);
    long distinct = 0;
    for (int i = 0; i < size; i++) {
      if (i == 0 || fingerprints[i] != fingerprints[i - 1]) {
        distinct++;
      }
    }
    return distinct;
  }

  private static long fingerprint(String key) {
    CRC32C crc = new CRC32C();
    crc.update(key.getBytes(StandardCharsets.UTF_8));
    return ((long) key.hashCode() << 32) | crc.getValue();
  }
}
