package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.format.StowageKeys;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The Redis keys that the live caches and feeds of one {@code Stowage} own, so that none is built
 * whose keys overlap another's, or the keys Stowage writes on its own account: where two namespaces
 * overlap, a key of one can be the other's, and {@code clear()} of one deletes it. A cache or feed
 * is live while the application can reach it (it is held weakly). The same cache or feed built
 * again (the same name, prefix and layout; the same feed key and counter) shares its keys and is
 * allowed. Thread-safe.
 */
public final class KeyNamespaces {
  /**
   * The key families that {@link StowageKeys} names and Stowage writes. Not the whole {@code
   * stowage:} namespace: an application may keep a cache under another name there (the board keeps
   * its mark of completeness under {@code stowage:board:}), and its {@code clear()} cannot reach
   * these.
   */
  private static final List<String> OWN_PREFIXES =
      List.of(
          StowageKeys.SCHEMA_PREFIX,
          StowageKeys.DICTIONARY_PREFIX,
          StowageKeys.DICTIONARY_INFO_PREFIX,
          StowageKeys.LEARNED_BY_CACHE_PREFIX,
          StowageKeys.LEARNED_BY_FEED_PREFIX,
          StowageKeys.LOCK_PREFIX);

  private static final Namespace STOWAGE =
      new Namespace(
          "Stowage's own keys ("
              + String.join("*, ", OWN_PREFIXES)
              + "*: schemas, dictionaries, their training records, learned-dictionary records, load locks)",
          "stowage",
          OWN_PREFIXES,
          List.of(),
          List.of());

  private final List<Reservation> reserved = new ArrayList<>();

  /**
   * The keys of one cache or feed: whole keys, prefixes under which any key may be its own, and
   * keys that several may share by design (the hash of feeds' counters, one field each).
   */
  public static final class Namespace {
    private final String description;
    private final String identity;
    private final List<String> prefixes;
    private final List<String> keys;
    private final List<String> sharedKeys;

    private Namespace(
        String description,
        String identity,
        List<String> prefixes,
        List<String> keys,
        List<String> sharedKeys) {
      this.description = description;
      this.identity = identity;
      this.prefixes = prefixes;
      this.keys = keys;
      this.sharedKeys = sharedKeys;
    }

    /**
     * A cache's: every key under its prefix (on the packed layout, only {@code <prefix>{n}} is
     * written, but a key-per-value cache's keys could be any key under the prefix, so the whole
     * prefix counts).
     *
     * @param layout the layout as its {@code toString()} names it, for the identity and messages
     */
    public static Namespace ofCache(String name, String keyPrefix, String layout, boolean packed) {
      return new Namespace(
          "cache '"
              + name
              + "' (keys under '"
              + keyPrefix
              + "'"
              + (packed ? ", " + layout : "")
              + ")",
          "cache\0" + name + "\0" + keyPrefix + "\0" + layout,
          List.of(keyPrefix),
          List.of(),
          List.of());
    }

    /**
     * A feed's: its index, its buckets open ({@code <key>:b:*}) and sealed ({@code <key>:s:*}), the
     * holds on its sealed buckets ({@code <key>:h:*}), and its counter hash, which other feeds may
     * share.
     */
    public static Namespace ofFeed(
        String name, String key, String counterKey, String counterField) {
      String buckets = StowageKeys.feedBucket(key, 0);
      String sealed = StowageKeys.feedSealedBucket(key, 0);
      String holds = StowageKeys.feedSealHold(key, 0);
      buckets = buckets.substring(0, buckets.length() - 1);
      sealed = sealed.substring(0, sealed.length() - 1);
      holds = holds.substring(0, holds.length() - 1);
      return new Namespace(
          "feed '"
              + name
              + "' (key '"
              + key
              + "', buckets '"
              + buckets
              + "*' and '"
              + sealed
              + "*', counter hash '"
              + counterKey
              + "')",
          "feed\0" + key + "\0" + counterKey + "\0" + counterField,
          List.of(buckets, sealed, holds),
          List.of(key),
          List.of(counterKey));
    }

    /** Whether a key could be both this namespace's and {@code other}'s. */
    boolean overlaps(Namespace other) {
      for (String prefix : prefixes) {
        for (String theirs : other.prefixes) {
          if (prefix.startsWith(theirs) || theirs.startsWith(prefix)) {
            return true;
          }
        }
        if (anyStartsWith(other.keys, prefix) || anyStartsWith(other.sharedKeys, prefix)) {
          return true;
        }
      }
      for (String theirs : other.prefixes) {
        if (anyStartsWith(keys, theirs) || anyStartsWith(sharedKeys, theirs)) {
          return true;
        }
      }
      for (String key : keys) {
        if (other.keys.contains(key) || other.sharedKeys.contains(key)) {
          return true;
        }
      }
      for (String key : sharedKeys) {
        if (other.keys.contains(key)) {
          return true;
        }
      }
      return false;
    }

    private static boolean anyStartsWith(List<String> keys, String prefix) {
      for (String key : keys) {
        if (key.startsWith(prefix)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return description;
    }
  }

  /** A namespace taken while its cache or feed is built, then held as long as that is reachable. */
  public final class Reservation {
    private final Namespace namespace;
    private @Nullable WeakReference<Object> holder;

    private Reservation(Namespace namespace) {
      this.namespace = namespace;
    }

    /** Keeps the namespace while {@code built} is reachable, and returns it. */
    public <T> T heldBy(T built) {
      requireNonNull(built, "built");
      synchronized (KeyNamespaces.this) {
        holder = new WeakReference<>(built);
      }
      return built;
    }

    /** Gives the namespace back: what it was reserved for was not built. */
    public void release() {
      synchronized (KeyNamespaces.this) {
        reserved.remove(this);
      }
    }

    /** Whether it is being built, or built and reachable. */
    private boolean isLive() {
      return holder == null || holder.get() != null;
    }
  }

  /**
   * Takes {@code namespace} for a cache or feed about to be built; {@link Reservation#heldBy} keeps
   * it then, or {@link Reservation#release} gives it back if the build fails.
   *
   * @throws IllegalArgumentException naming both, if it overlaps Stowage's own keys or a live
   *     cache's or feed's other than the same one built again
   */
  public synchronized Reservation reserve(Namespace namespace) {
    if (namespace.overlaps(STOWAGE)) {
      throw new IllegalArgumentException(
          namespace
              + " overlaps "
              + STOWAGE
              + ", which clear() or a write would"
              + " delete or overwrite; choose a key prefix or key that neither starts with one of them nor is the start"
              + " of one, such as one outside '"
              + StowageKeys.NAMESPACE
              + "'");
    }
    for (Iterator<Reservation> it = reserved.iterator(); it.hasNext(); ) {
      Reservation other = it.next();
      if (!other.isLive()) {
        it.remove();
      } else if (!other.namespace.identity.equals(namespace.identity)
          && namespace.overlaps(other.namespace)) {
        throw new IllegalArgumentException(
            namespace
                + " overlaps "
                + other.namespace
                + " of the same Stowage: a"
                + " key of one could be the other's, and clear() of one would delete it. Give each a key prefix (or"
                + " feed key) that the other's does not start with, ending with a separator such as ':'");
      }
    }
    Reservation reservation = new Reservation(namespace);
    reserved.add(reservation);
    return reservation;
  }
}
