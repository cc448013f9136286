package dev.stowage.internal.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.stowage.NearCache;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The decoded values one cache or feed keeps in the process, valid while Redis has not said that
 * their keys changed.
 *
 * <p><b>The race with invalidations.</b> A read takes a {@linkplain #stamp stamp} of its key before
 * it is sent: the counter of the key's stripe, which every invalidation of a key of that stripe
 * moves. When the reply has been decoded, {@link #keep} stores the value and then checks the stamp
 * again; if an invalidation moved it meanwhile (before or after the store), the value is taken out
 * again. An invalidation moves the counter before it removes the entry, so whichever order the two
 * run in, a value whose reply may be older than an invalidation never stays. While tracking is off
 * (not set up yet, a dropped connection, a server that cannot track) stamps are -1 and nothing is
 * kept. Thread-safe.
 */
final class NearStore {
  private static final int STRIPES = 1024;

  private final Cache<String, Kept> entries;
  private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final String prefix;
  private final boolean wholeOnAnyChange;
  private volatile boolean tracking;

  /** A kept value, with the stored size it is weighed by. */
  private record Kept(Object value, int weight) {}

  /**
   * A store for keys under {@code prefix} (every invalidation outside it is ignored). With
   * {@code wholeOnAnyChange}, as for a feed's pages, which are read from several keys, an
   * invalidation of any key under the prefix drops everything.
   */
  NearStore(NearCache options, String prefix, boolean wholeOnAnyChange) {
    this.prefix = prefix;
    this.wholeOnAnyChange = wholeOnAnyChange;
    Caffeine<Object, Object> builder = Caffeine.newBuilder();
    if (options.maximumEntries() > 0) {
      builder.maximumSize(options.maximumEntries());
    } else {
      builder.maximumWeight(options.maximumBytes());
      builder.weigher((String key, Kept kept) -> kept.weight());
    }
    options.timeLimit().ifPresent(builder::expireAfterWrite);
    this.entries = builder.<String, Kept>build();
  }

  /** The value kept for {@code key}, or null, counting a near hit or miss. */
  @Nullable Object get(String key) {
    Kept kept = entries.getIfPresent(key);
    if (kept == null) {
      misses.increment();
      return null;
    }
    hits.increment();
    return kept.value();
  }

  /** The stamp a read of {@code key} takes before it is sent, or -1 when nothing may be kept. */
  long stamp(String key) {
    return tracking ? stripes.get(stripe(key)) : -1;
  }

  /** Keeps a decoded value read with {@code stamp}, unless an invalidation came since. */
  void keep(String key, long stamp, Object value, int weight) {
    if (stamp < 0 || value == null) {
      return;
    }
    int stripe = stripe(key);
    if (stripes.get(stripe) != stamp || !tracking) {
      return;
    }
    Kept kept = new Kept(value, Math.max(1, weight));
    entries.put(key, kept);
    if (stripes.get(stripe) != stamp || !tracking) {
      entries.asMap().remove(key, kept);
    }
  }

  /** Drops the value of {@code key}: Redis said it changed, or this process wrote it. */
  void invalidate(String key) {
    if (!key.startsWith(prefix)) {
      return;
    }
    if (wholeOnAnyChange) {
      invalidateAll();
      return;
    }
    stripes.incrementAndGet(stripe(key));
    entries.invalidate(key);
  }

  /** Drops everything, and fails every read in flight's stamp. */
  void invalidateAll() {
    for (int i = 0; i < STRIPES; i++) {
      stripes.incrementAndGet(i);
    }
    entries.invalidateAll();
  }

  /** Whether values may be kept: Redis tracks the keys read. Turning it either way empties the store. */
  void tracking(boolean on) {
    if (!on) {
      tracking = false;
      invalidateAll();
    } else {
      invalidateAll();
      tracking = true;
    }
  }

  boolean isTracking() {
    return tracking;
  }

  String prefix() {
    return prefix;
  }

  long hits() {
    return hits.sum();
  }

  long misses() {
    return misses.sum();
  }

  private static int stripe(String key) {
    return (key.hashCode() & 0x7fffffff) % STRIPES;
  }
}
