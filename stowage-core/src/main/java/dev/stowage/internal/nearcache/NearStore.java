package dev.stowage.internal.nearcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.stowage.NearCache;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The decoded values one cache or feed keeps in the process, valid while Redis has not said that
 * their keys changed.
 *
 * <p><b>The race with invalidations.</b> A read takes a {@linkplain #stamp stamp} of its key before
 * it is sent: the counter of the key's stripe, which every invalidation of a key of that stripe
 * moves. When the reply has been decoded, {@link #keep} checks the stamp and stores the value in
 * one step under the key's lock ({@code compute}). An invalidation moves the counter before it
 * removes the entry, which takes the same lock, so whichever order the two run in, a value whose
 * reply may be older than an invalidation is never stored after it, nor seen once it is done. While
 * tracking is off (not set up yet, a dropped connection, a server that cannot track) stamps are -1
 * and nothing is kept. Thread-safe.
 *
 * <p><b>Time to live.</b> Redis tells a tracking client that a key expired only once it removes the
 * key, which its background expiry may do minutes later. So a value is kept with the time to live
 * its key had when it was read ({@code PTTL}, sent right after the {@code GET} on the same
 * connection), counted from before the read was sent, and never longer: a near copy never outlives
 * its key in Redis, whoever set the TTL. A change of the TTL ({@code EXPIRE}, {@code PERSIST})
 * modifies the key, so Redis sends an invalidation for it as for a write. {@code expireAfterWrite}
 * bounds each entry further.
 */
public final class NearStore {
  private static final int STRIPES = 1024;

  /** The time to live of a key without one ({@code PTTL} answers -1). */
  public static final long NO_TTL = -1;

  /**
   * A time to live not known: the key was gone when {@code PTTL} ran, or it was not read with the
   * value.
   */
  public static final long UNKNOWN_TTL = -2;

  private final Cache<String, Kept> entries;
  private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final String prefix;
  private final boolean wholeOnAnyChange;
  private volatile boolean tracking;

  /**
   * The Redis key that holds an entry, when entries share Redis keys; null when each has its own.
   */
  private volatile @Nullable Function<String, String> groups;

  /**
   * A kept value, with the stored size it is weighed by, and how long it may be kept counted from
   * {@code readAt} (nanoseconds, {@link Long#MAX_VALUE} for as long as Redis says nothing).
   */
  private record Kept(Object value, int weight, long readAt, long lifeNanos, long stamp) {}

  /**
   * Each entry lives what is left of its key's time to live, and no longer than {@code
   * expireAfterWrite} (from when it was kept); a read does not extend it.
   */
  private static final class KeyLifetime implements Expiry<String, Kept> {
    private final long limitNanos;

    KeyLifetime(long limitNanos) {
      this.limitNanos = limitNanos;
    }

    @Override
    public long expireAfterCreate(String key, Kept kept, long currentTime) {
      if (kept.lifeNanos() == Long.MAX_VALUE) {
        return limitNanos;
      }
      return Math.min(limitNanos, kept.lifeNanos() - (currentTime - kept.readAt()));
    }

    @Override
    public long expireAfterUpdate(String key, Kept kept, long currentTime, long currentDuration) {
      return expireAfterCreate(key, kept, currentTime);
    }

    @Override
    public long expireAfterRead(String key, Kept kept, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }

  /**
   * A store for keys under {@code prefix} (every invalidation outside it is ignored). With {@code
   * wholeOnAnyChange}, as for a feed's pages, which are read from several keys, an invalidation of
   * any key under the prefix drops everything.
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
    long limit = options.timeLimit().map(Duration::toNanos).orElse(Long.MAX_VALUE);
    // The default ticker is System.nanoTime(), the clock of Kept.readAt.
    this.entries = builder.expireAfter(new KeyLifetime(limit)).<String, Kept>build();
  }

  /** The value kept for {@code key}, or null, counting a near hit or miss. */
  public @Nullable Object get(String key) {
    Kept kept = entries.getIfPresent(key);
    if (kept != null && groups != null && stripes.get(stripeOf(key)) != kept.stamp()) {
      // Its Redis key changed since it was kept: the entry went with the group.
      entries.asMap().remove(key, kept);
      kept = null;
    }
    if (kept == null) {
      misses.increment();
      return null;
    }
    hits.increment();
    return kept.value();
  }

  /** The stamp a read of {@code key} takes before it is sent, or -1 when nothing may be kept. */
  public long stamp(String key) {
    return tracking ? stripes.get(stripeOf(key)) : -1;
  }

  /**
   * Keeps a decoded value read with {@code stamp} from a key without a TTL, unless an invalidation
   * came since.
   */
  public void keep(String key, long stamp, Object value, int weight) {
    keep(key, stamp, value, weight, 0, NO_TTL);
  }

  /**
   * Keeps a decoded value read with {@code stamp}, unless an invalidation came since, for at most
   * {@code ttlMillis} from {@code sentAt}: the key's time to live as {@code PTTL} answered it
   * ({@link #NO_TTL} for none; below that, as {@link #UNKNOWN_TTL}, nothing is kept), and the
   * {@link System#nanoTime()} taken before the read was sent, so that the copy goes no later than
   * the key does in Redis.
   */
  public void keep(String key, long stamp, Object value, int weight, long sentAt, long ttlMillis) {
    if (stamp < 0 || value == null || ttlMillis < NO_TTL) {
      return;
    }
    long lifeNanos =
        ttlMillis == NO_TTL ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(ttlMillis);
    if (lifeNanos != Long.MAX_VALUE && lifeNanos - (System.nanoTime() - sentAt) <= 0) {
      return;
    }
    int stripe = stripeOf(key);
    if (stripes.get(stripe) != stamp || !tracking) {
      return;
    }
    Kept kept = new Kept(value, Math.max(1, weight), sentAt, lifeNanos, stamp);
    // The check and the store are one step under the key's lock, which the invalidation's removal
    // takes too: either the store comes first and the removal takes it out, or the counter has
    // moved
    // and nothing is stored. A store followed by a check (as before) left the value visible between
    // the two to readers that came after the invalidation.
    entries
        .asMap()
        .compute(key, (k, current) -> stripes.get(stripe) == stamp && tracking ? kept : current);
  }

  /**
   * Drops the value of {@code key}, a Redis key: Redis said it changed. When entries share Redis
   * keys, every entry that {@code key} holds goes.
   */
  void invalidate(String key) {
    if (!key.startsWith(prefix)) {
      return;
    }
    if (wholeOnAnyChange) {
      invalidateAll();
      return;
    }
    if (groups != null) {
      // The entries of the group are dropped as they are next read: their stamps no longer match.
      stripes.incrementAndGet(stripe(key));
      return;
    }
    stripes.incrementAndGet(stripe(key));
    entries.invalidate(key);
  }

  /**
   * Fails the stamps of reads in flight of {@code key} without dropping its value: a read of it
   * went over a connection that does not track it.
   */
  public void untracked(String key) {
    stripes.incrementAndGet(stripeOf(key));
  }

  /**
   * Drops the value of the entry {@code key}, which this process wrote, and (when entries share
   * Redis keys) of every entry its Redis key holds.
   */
  public void drop(String key) {
    if (groups == null) {
      invalidate(key);
      return;
    }
    stripes.incrementAndGet(stripeOf(key));
    entries.invalidate(key);
  }

  /**
   * Entries share Redis keys: {@code redisKey} names the one that holds an entry, which is what
   * Redis invalidates. Set before the store is used.
   */
  public void groupBy(Function<String, String> redisKey) {
    this.groups = redisKey;
  }

  /** The stripe of an entry: its Redis key's. */
  private int stripeOf(String key) {
    Function<String, String> group = groups;
    return stripe(group == null ? key : group.apply(key));
  }

  /** Drops everything, and fails every read in flight's stamp. */
  public void invalidateAll() {
    for (int i = 0; i < STRIPES; i++) {
      stripes.incrementAndGet(i);
    }
    entries.invalidateAll();
  }

  /**
   * Whether values may be kept: Redis tracks the keys read. Turning it either way empties the
   * store.
   */
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

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  private static int stripe(String key) {
    return (key.hashCode() & 0x7fffffff) % STRIPES;
  }
}
