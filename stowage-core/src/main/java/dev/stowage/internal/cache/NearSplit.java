package dev.stowage.internal.cache;

import dev.stowage.internal.nearcache.NearStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch split by the near cache: the values it keeps, and the rest to read with their stamps,
 * when their read was sent and (once read) their times to live.
 */
final class NearSplit<K, V> {
  private final CacheEngine<K, V> engine;
  final Map<K, V> kept = new LinkedHashMap<>();
  final CacheEngine<K, V>.KeyBatch rest;
  final long[] stamps;
  final long[] ttls;
  final long sentAt;

  NearSplit(CacheEngine<K, V> engine, CacheEngine<K, V>.KeyBatch batch) {
    this.engine = engine;
    List<K> toRead = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      V value = engine.nearEntry(batch.entryTexts.get(i));
      if (value != null) {
        kept.put(batch.keys.get(i), value);
      } else {
        toRead.add(batch.keys.get(i));
      }
    }
    this.rest = kept.isEmpty() ? batch : engine.new KeyBatch(toRead);
    this.stamps = new long[rest.size()];
    for (int i = 0; i < stamps.length; i++) {
      stamps[i] = engine.stamp(rest.texts.get(i));
    }
    this.ttls = new long[rest.size()];
    Arrays.fill(ttls, NearStore.UNKNOWN_TTL);
    // Before any chunk is sent: the earliest time a chunk's TTLs can be counted from.
    this.sentAt = System.nanoTime();
  }

  /** Keeps what was read, and returns every value found, in the batch's order. */
  Map<K, V> found(CacheEngine<K, V>.KeyBatch batch, byte[][] values, Map<K, V> decoded) {
    for (int i = 0; i < values.length; i++) {
      V value = decoded.get(rest.keys.get(i));
      if (values[i] != null) {
        engine.keep(rest.texts.get(i), stamps[i], value, values[i], sentAt, ttls[i]);
      }
    }
    return kept.isEmpty() ? decoded : engine.merge(batch, kept, decoded);
  }
}
