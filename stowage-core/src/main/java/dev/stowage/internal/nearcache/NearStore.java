package dev.stowage.internal.nearcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.stowage.NearCache;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
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
 * one step under the key's lock ({@code compute}), then checks the counter again and confirms the
 * entry. An invalidation moves the counter, then marks the entry it finds invalid. An entry not yet
 * confirmed is returned only while its stripe's counter has not moved. So whichever order the two
 * run in, a value whose reply may be older than an invalidation is never stored after it, nor seen
 * once it is done. While tracking is off (not set up yet, a dropped connection, a server that
 * cannot track) stamps are -1 and nothing is kept. Thread-safe.
 *
 * <p><b>Invalidations never wait.</b> They arrive on a connection's event loop, and every reply
 * behind them waits for them. Removing an entry is a Caffeine write, which waits for Caffeine's
 * maintenance when its write buffer is full; so an invalidation only marks the entry (a volatile
 * write), and the next read of the key takes it out, or the size bound does.
 *
 * <p><b>A hit costs a lookup.</b> Entries are keyed by their key's text after the prefix, so that a
 * cache's read finds its entry without building the Redis key ({@link #getEntry}); the deadline an
 * entry's time to live and {@code expireAfterWrite} give is checked by the read itself, one clock
 * read, where Caffeine's variable expiry cost five times a lookup (NearHitBenchmark).
 *
 * <p><b>Time to live.</b> Redis tells a tracking client that a key expired only once it removes the
 * key, which its background expiry may do minutes later. So a value is kept with the time to live
 * its key had when it was read ({@code PTTL}, sent right after the {@code GET} on the same
 * connection), counted from before the read was sent, and never longer: a near copy never outlives
 * its key in Redis, whoever set the TTL. A change of the TTL ({@code EXPIRE}, {@code PERSIST})
 * modifies the key, so Redis sends an invalidation for it as for a write. {@code expireAfterWrite}
 * bounds each entry further. An expired entry is never returned; it goes when next read, or with
 * the size bound.
 */
public final class NearStore {
  /**
   * The fewest and most stripes a store has: about one per entry it may hold, within these. A read
   * whose stripe moves while it is in flight is not kept, so with too few stripes the invalidations
   * of other keys fail reads (with 1,024 stripes, 100,000 entries and 1,000 writes a second, each
   * stripe moved about once a second, and a read that waited for a busy event loop often lost).
   */
  private static final int MIN_STRIPES = 1 << 10;

  private static final int MAX_STRIPES = 1 << 16;

  /** The stripes of a store bounded by bytes, whose number of entries is not known. */
  private static final int BY_WEIGHT_STRIPES = 1 << 14;

  /** The time to live of a key without one ({@code PTTL} answers -1). */
  public static final long NO_TTL = -1;

  /**
   * A time to live not known: the key was gone when {@code PTTL} ran, or it was not read with the
   * value.
   */
  public static final long UNKNOWN_TTL = -2;

  /** An entry's deadline when it has none. */
  private static final long NEVER = Long.MAX_VALUE;

  /** The longest {@code expireAfterWrite} kept as such: half the range of nanoTime differences. */
  private static final Duration LONGEST_LIMIT = Duration.ofNanos(Long.MAX_VALUE / 2);

  private final Cache<String, Kept> entries;
  private final AtomicLongArray stripes;
  private final int stripeMask;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final String prefix;
  private final boolean wholeOnAnyChange;
  private final long limitNanos;
  private volatile boolean tracking;

  /**
   * The Redis key that holds an entry, when entries share Redis keys; null when each has its own.
   */
  private volatile @Nullable Function<String, String> groups;

  /**
   * A kept value, with the stored size it is weighed by, the stripe and stamp it was read with, and
   * the {@link System#nanoTime()} it may be returned until ({@link #NEVER} for as long as Redis
   * says nothing).
   */
  private static final class Kept {
    /** Stored, but its keeper has not yet checked that no invalidation came meanwhile. */
    static final int UNCONFIRMED = 0;

    /** Checked after it was stored: valid until Redis says its key changed. */
    static final int CONFIRMED = 1;

    /** Redis said its key changed: it reads as absent, whether or not Caffeine removed it yet. */
    static final int INVALID = 2;

    private static final AtomicIntegerFieldUpdater<Kept> STATE =
        AtomicIntegerFieldUpdater.newUpdater(Kept.class, "state");

    final Object value;
    final int weight;
    final int stripe;
    final long stamp;
    final long deadline;
    volatile int state;

    Kept(Object value, int weight, int stripe, long stamp, long deadline) {
      this.value = value;
      this.weight = weight;
      this.stripe = stripe;
      this.stamp = stamp;
      this.deadline = deadline;
    }

    /** Confirms an entry still unconfirmed; an invalid one stays invalid. */
    void confirm() {
      STATE.compareAndSet(this, UNCONFIRMED, CONFIRMED);
    }

    void invalidate() {
      state = INVALID;
    }
  }

  /**
   * A store for keys under {@code prefix} (every invalidation outside it is ignored). With {@code
   * wholeOnAnyChange}, as for a feed's pages, which are read from several keys, an invalidation of
   * any key under the prefix drops everything.
   */
  NearStore(NearCache options, String prefix, boolean wholeOnAnyChange) {
    this(options, prefix, wholeOnAnyChange, ForkJoinPool.commonPool());
  }

  /** The same, with Caffeine's maintenance run by {@code maintenance} (its default is the same). */
  NearStore(NearCache options, String prefix, boolean wholeOnAnyChange, Executor maintenance) {
    this.prefix = prefix;
    this.wholeOnAnyChange = wholeOnAnyChange;
    this.stripes = new AtomicLongArray(stripeCount(options));
    this.stripeMask = stripes.length() - 1;
    Caffeine<Object, Object> builder = Caffeine.newBuilder().executor(maintenance);
    if (options.maximumEntries() > 0) {
      builder.maximumSize(options.maximumEntries());
    } else {
      builder.maximumWeight(options.maximumBytes());
      builder.weigher((String key, Kept kept) -> kept.weight);
    }
    this.limitNanos = options.timeLimit().map(NearStore::limitNanos).orElse(NEVER);
    this.entries = builder.<String, Kept>build();
  }

  /**
   * A power of two: the entries the store may hold, within {@link #MIN_STRIPES} and {@link
   * #MAX_STRIPES}, rounded up; {@link #BY_WEIGHT_STRIPES} for a store bounded by bytes.
   */
  private static int stripeCount(NearCache options) {
    if (options.maximumEntries() <= 0) {
      return BY_WEIGHT_STRIPES;
    }
    int wanted = (int) Math.max(MIN_STRIPES, Math.min(MAX_STRIPES, options.maximumEntries()));
    return Integer.highestOneBit(wanted - 1) << 1;
  }

  /**
   * {@code expireAfterWrite} in nanoseconds, or {@link #NEVER} for one so long (centuries) that a
   * deadline counted in {@link System#nanoTime()} could not be compared with it.
   */
  private static long limitNanos(Duration limit) {
    return limit.compareTo(LONGEST_LIMIT) >= 0 ? NEVER : limit.toNanos();
  }

  /**
   * The value kept for {@code key} (the whole key, the prefix included), or null, counting a near
   * hit or miss.
   */
  public @Nullable Object get(String key) {
    return getEntry(entry(key));
  }

  /**
   * The value kept for the entry {@code text}, a key's text after the prefix, or null, counting a
   * near hit or miss: a cache's read, which need not build the whole key for a hit.
   */
  public @Nullable Object getEntry(String text) {
    Kept kept = entries.getIfPresent(text);
    if (kept != null && !valid(kept)) {
      // Its Redis key changed since it was kept (alone, or with its group), or its time ran out:
      // the reader, not the connection that brought the news, takes it out.
      entries.asMap().remove(text, kept);
      kept = null;
    }
    if (kept == null) {
      misses.increment();
      return null;
    }
    hits.increment();
    return kept.value;
  }

  /**
   * Whether a kept entry may be returned: not invalidated, within its deadline, and, while its
   * keeper has not confirmed it yet or when entries share Redis keys, its stripe's counter has not
   * moved since it was read.
   */
  private boolean valid(Kept kept) {
    int state = kept.state;
    if (state == Kept.INVALID) {
      return false;
    }
    if ((state != Kept.CONFIRMED || groups != null) && stripes.get(kept.stripe) != kept.stamp) {
      return false;
    }
    return kept.deadline == NEVER || System.nanoTime() - kept.deadline < 0;
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
    keep(key, stamp, value, weight, System.nanoTime(), NO_TTL);
  }

  /**
   * Keeps a decoded value read with {@code stamp}, unless an invalidation came since, for at most
   * {@code ttlMillis} from {@code sentAt}: the key's time to live as {@code PTTL} answered it
   * ({@link #NO_TTL} for none; below that, as {@link #UNKNOWN_TTL}, nothing is kept), and the
   * {@link System#nanoTime()} taken before the read was sent, so that the copy goes no later than
   * the key does in Redis; and for at most {@code expireAfterWrite} from now.
   */
  public void keep(String key, long stamp, Object value, int weight, long sentAt, long ttlMillis) {
    if (stamp < 0 || value == null || ttlMillis < NO_TTL) {
      return;
    }
    long now = System.nanoTime();
    long deadline = limitNanos == NEVER ? NEVER : now + limitNanos;
    if (ttlMillis != NO_TTL) {
      long keyDeadline = sentAt + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
      if (keyDeadline - now <= 0) {
        return;
      }
      deadline = deadline == NEVER || keyDeadline - deadline < 0 ? keyDeadline : deadline;
    }
    int stripe = stripeOf(key);
    if (stripes.get(stripe) != stamp || !tracking) {
      return;
    }
    Kept kept = new Kept(value, Math.max(1, weight), stripe, stamp, deadline);
    // Stored only if no invalidation of its stripe came yet (checked under the key's lock), then
    // confirmed only if none came before the store was done. An invalidation moves the counter,
    // then marks the entry it finds; one that came too early to find this entry moved the counter
    // before the second check, which then marks the entry itself, and until then readers find it
    // unconfirmed and check the counter.
    Kept stored =
        entries
            .asMap()
            .compute(
                entry(key),
                (k, current) -> stripes.get(stripe) == stamp && tracking ? kept : current);
    if (stored == kept) {
      if (stripes.get(stripe) == stamp && tracking) {
        kept.confirm();
      } else {
        kept.invalidate();
      }
    }
  }

  /**
   * Drops the value of {@code key}, a Redis key: Redis said it changed. When entries share Redis
   * keys, every entry that {@code key} holds goes. Runs on a connection's event loop: it never
   * waits (see the class comment).
   */
  void invalidate(String key) {
    if (!key.startsWith(prefix)) {
      return;
    }
    if (wholeOnAnyChange) {
      invalidateAll();
      return;
    }
    stripes.incrementAndGet(stripe(key));
    if (groups != null) {
      // The entries of the group are dropped as they are next read: their stamps no longer match.
      return;
    }
    Kept kept = entries.policy().getIfPresentQuietly(entry(key));
    if (kept != null) {
      kept.invalidate();
    }
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
   * Redis keys) of every entry its Redis key holds. Runs in the writer's thread, so the entry goes
   * at once.
   */
  public void drop(String key) {
    if (wholeOnAnyChange) {
      invalidateAll();
      return;
    }
    // The removal takes the key's lock, as a keep's store does: a keep that stored before it is
    // removed, one after it finds the counter moved.
    stripes.incrementAndGet(stripeOf(key));
    entries.invalidate(entry(key));
  }

  /**
   * Entries share Redis keys: {@code redisKey} names the one that holds an entry, which is what
   * Redis invalidates. Set before the store is used.
   */
  public void groupBy(Function<String, String> redisKey) {
    this.groups = redisKey;
  }

  /** The stripe of an entry: its Redis key's. */
  int stripeOf(String key) {
    Function<String, String> group = groups;
    return stripe(group == null ? key : group.apply(key));
  }

  /** The entry of a whole key: its text after the prefix. */
  private String entry(String key) {
    if (!key.startsWith(prefix)) {
      throw new IllegalArgumentException(key + " is not under the near cache's prefix " + prefix);
    }
    return key.substring(prefix.length());
  }

  /** Drops everything, and fails every read in flight's stamp. */
  public void invalidateAll() {
    for (int i = 0; i < stripes.length(); i++) {
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

  private int stripe(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & stripeMask;
  }
}
