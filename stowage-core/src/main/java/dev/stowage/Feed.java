package dev.stowage;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.feed.FeedSettings;
import dev.stowage.internal.feed.RedisFeed;
import dev.stowage.internal.format.StowageKeys;
import dev.stowage.internal.redis.KeyNamespaces;
import dev.stowage.internal.redis.WriteCodec;
import io.lettuce.core.cluster.SlotHash;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ForkJoinPool;
import org.jspecify.annotations.Nullable;

/**
 * A newest-first list of values in Redis, read by page. Feeds come from {@link Stowage#feed(String,
 * Class)}.
 *
 * <pre>{@code
 * Feed<Post> posts = stowage.feed("posts", Post.class).build();
 * long id = posts.add(post);
 * List<Feed.Entry<Post>> newest = posts.page(1, 20);
 * }</pre>
 *
 * <p><b>Scores.</b> Each entry has a score, a positive integer from the feed's counter (a field of
 * a Redis hash, see {@link Builder#counter}) or given by {@link #putAll}: the highest score is the
 * newest entry. Two equal values added twice are two entries. Scores are exact up to
 * 2<sup>53</sup>.
 *
 * <p><b>Storage.</b> Entries are kept in buckets of 64 consecutive scores. A bucket that is still
 * filling is a Redis list of its entries, each written with the feed's {@link Encoding} (encoded
 * and compressed on its own); a full bucket is {@linkplain Builder#sealFullBuckets sealed} into one
 * Redis string, its entries compressed together. A sorted set indexes the buckets that hold
 * entries. Every key the feed owns derives from its {@linkplain Builder#key key}; the key names are
 * not part of the API. A page is one round trip (a script that walks the index from the newest
 * bucket and reads the page from one or two buckets); reaching a later page costs work in
 * proportion to the buckets before it.
 *
 * <p><b>Failures.</b> An entry that cannot be decoded is skipped, counted in {@link
 * #decodeFailures()} and logged once, never thrown. When Redis is unreachable or too slow a call
 * throws {@link CacheUnavailableException}, as for {@link RedisCache}; other Redis errors are
 * {@link StowageException}s. Arguments are never {@code null}.
 *
 * <p>Implementations are thread-safe. Every method here waits for its counterpart in {@link
 * #async()}, which returns a future instead.
 *
 * @param <V> the type of the values
 */
public interface Feed<V> {
  /** The largest page size. */
  int MAX_PAGE_SIZE = 10_000;

  /** The feed's name, as given to {@link Stowage#feed(String, Class)}. */
  String name();

  /**
   * Adds a value as the newest entry, in one round trip (a script increments the counter and
   * appends the entry).
   *
   * @return its score
   * @throws CodecException if the value cannot be encoded
   */
  long add(V value);

  /**
   * Adds values as the newest entries, the last one newest: one {@code HINCRBY} reserves their
   * consecutive scores, then one script per chunk stores the chunk's entries in their buckets, a
   * few chunks in flight at once.
   *
   * @return their scores, in the order of {@code values}
   * @throws CodecException if a value cannot be encoded, in which case nothing was sent
   */
  List<Long> addAll(List<? extends V> values);

  /**
   * Stores values at scores of your own (for example ids from a database, when refilling the feed),
   * replacing any entry at the same score, and raises the counter to the largest score so that
   * {@link #add} never reuses one. One script per chunk; a score below the newest of its bucket
   * costs a scan of that bucket (at most 64 entries).
   *
   * @throws IllegalArgumentException if a score is below 1 or above 2<sup>53</sup>
   */
  void putAll(Map<Long, ? extends V> valuesByScore);

  /**
   * Page {@code page} (from 1) of {@code size} entries, newest first. A page past the end is empty.
   *
   * @throws IllegalArgumentException if {@code page} is below 1 or {@code size} is outside 1 to
   *     {@link #MAX_PAGE_SIZE}
   */
  List<Entry<V>> page(int page, int size);

  /**
   * Removes the entry with this score: one script, which scans the entry's bucket (at most 64
   * entries) and drops the bucket once it is empty.
   *
   * @return whether there was one
   * @throws IllegalArgumentException if the score is below 1 or above 2<sup>53</sup>, as for {@link
   *     #putAll}
   */
  boolean remove(long score);

  /** The number of entries: one script, one {@code LLEN} per bucket. */
  long size();

  /** Removes every entry; the counter keeps its value, so scores are never reused. */
  void clear();

  /**
   * Reserves {@code count} consecutive scores for values to be stored later with {@link #putAll}
   * (for example once rows keyed by score are committed in a database), atomically: the counter is
   * first lifted to {@code floor} when it is below it (pass the highest score handed out, so that
   * scores only ever grow), then incremented by {@code count}.
   *
   * @return the first score reserved, or an empty value when Redis holds no counter: a counter lost
   *     with a restarted Redis is never silently counted again from zero, which could hand out
   *     scores below entries that exist elsewhere; restore it with {@link #raiseCounter} and
   *     reserve again
   * @throws IllegalArgumentException if {@code count} is below 1 or {@code floor} is outside 0 to
   *     2<sup>53</sup>
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  OptionalLong reserveScores(int count, long floor);

  /**
   * Raises the counter to at least {@code atLeast}, creating it when missing and never lowering it.
   *
   * @return the counter's value afterwards
   * @throws IllegalArgumentException if {@code atLeast} is outside 0 to 2<sup>53</sup>
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  long raiseCounter(long atLeast);

  /**
   * Entries skipped since this feed was built because they could not be decoded. Read locally,
   * without a round trip.
   */
  long decodeFailures();

  /**
   * The asynchronous view of this feed: the same operations, returning futures. Never {@code null}.
   */
  AsyncFeed<V> async();

  /**
   * An entry of a page.
   *
   * @param score its score, from the counter
   * @param value its value
   * @param <V> the type of the value
   */
  record Entry<V>(long score, V value) {}

  /**
   * Configures a {@link Feed}, from {@link Stowage#feed(String, Class)}. Not thread-safe.
   *
   * @param <V> the type of the values
   */
  final class Builder<V> {
    private final Stowage owner;
    private final String name;
    private final TypeRef<V> type;
    private @Nullable Encoding<V> encoding;
    private @Nullable String key;
    private @Nullable String counterKey;
    private String counterField;
    private int chunkSize = RedisCache.DEFAULT_CHUNK_SIZE;
    private @Nullable NearCache nearCache;
    private boolean sealFullBuckets = true;

    Builder(Stowage owner, String name, TypeRef<V> type) {
      this.owner = owner;
      this.name = name;
      this.type = type;
      this.counterField = name;
    }

    /**
     * How entries are written and read, as for a cache ({@link RedisCache.Builder#encoding});
     * {@link Encoding#defaultFor(TypeRef) Encoding.defaultFor(type)} by default, whose learned
     * dictionary is recorded under {@code stowage:learned:feed:<key>} ({@link
     * Inspector.Keys#learnedByFeed}). An entry larger than the encoding's {@linkplain
     * Encoding#maxDecodedSize maxDecodedSize} is skipped and counted in {@link
     * Feed#decodeFailures()}.
     */
    public Builder<V> encoding(Encoding<V> encoding) {
      this.encoding = requireNonNull(encoding, "encoding");
      return this;
    }

    /**
     * The sorted set's key; the feed's name by default. On a Redis Cluster the feed's scripts touch
     * its index, its buckets ({@code <key>:b:<n>}) and its counter together, which must therefore
     * share a hash slot: the key must carry a hash tag ({@code {...}}, whose text alone is hashed),
     * and is {@code {name}} by default (the name itself when it carries one). The feed owns the key
     * and every key under {@code <key>:b:} and {@code <key>:s:}; a cache prefix of the same {@code
     * Stowage} that covers them is refused, and in other processes none may.
     */
    public Builder<V> key(String key) {
      this.key = requireNonNull(key, "key");
      return this;
    }

    /**
     * The counter: a field of a Redis hash; field {@code name} of hash {@code counter} by default,
     * and of hash {@code <key>:counter} on a Redis Cluster, where the hash must be in the key's
     * slot (carry the same hash tag).
     */
    public Builder<V> counter(String hashKey, String field) {
      this.counterKey = requireNonNull(hashKey, "hashKey");
      this.counterField = requireNonNull(field, "field");
      return this;
    }

    /**
     * Members per {@code ZADD} or script call; {@link RedisCache#DEFAULT_CHUNK_SIZE} by default.
     */
    public Builder<V> chunkSize(int chunkSize) {
      this.chunkSize = chunkSize;
      return this;
    }

    /**
     * Keeps decoded pages in the process while Redis says the feed has not changed; see {@link
     * NearCache}. A feed's near cache is always in broadcast mode on the feed's key: a page is read
     * from several keys, so any write under the key drops every kept page, and so does every write
     * through this feed. The bound counts pages, or the stored size of their entries. A kept page
     * is the same {@code List} instance for every caller until it is dropped. Off by default.
     *
     * @throws MissingLibraryException at {@link #build()}, without Caffeine
     */
    public Builder<V> nearCache(NearCache options) {
      this.nearCache = requireNonNull(options, "options");
      return this;
    }

    /**
     * Whether a bucket is sealed once it holds all its scores (64; 63 for bucket 0, since scores
     * start at 1): its entries stored together, compressed as one frame with the feed's encoding,
     * in one Redis string. On by default: compressed together, a bucket's entries take less Redis
     * memory than compressed one by one, and a page reads at most two sealed buckets. The write
     * that fills a bucket seals it: {@code add} after its reply, in the background; {@code addAll}
     * and {@code putAll} before they complete. A write into a sealed bucket opens it first, in the
     * same script (its entries back in its list, uncompressed), and holds it for a second, during
     * which no writer seals it: a burst of writes into old entries opens it once, and concurrent
     * writes into the same buckets never fail because of sealing (a bucket they keep writing into
     * stays open meanwhile). A sealed bucket whose Redis string was deleted or evicted leaves the
     * index the first time a page, {@code size()} or a write finds it, and its entries are counted
     * once in {@link Feed#decodeFailures()}. Versions before sealed buckets do not see sealed
     * entries: turn this off until every process that reads the feed runs a version that reads
     * them.
     */
    public Builder<V> sealFullBuckets(boolean seal) {
      this.sealFullBuckets = seal;
      return this;
    }

    /**
     * Builds the feed.
     *
     * @throws IllegalArgumentException for a blank key, counter or field, a chunk size outside 1 to
     *     {@link RedisCache#MAX_CHUNK_SIZE}; on a Redis Cluster, a key without a hash tag or a
     *     counter hash in another slot than the key; a key, bucket or counter among the keys
     *     Stowage writes on its own account ({@link Inspector.Keys}); or, naming both, keys that
     *     overlap those of another live cache or feed of the same {@code Stowage} (a cache prefix
     *     that covers them; the same feed, by key and counter, built again is allowed, and feeds
     *     share a counter hash)
     * @throws MissingLibraryException if the codec's or compression's library is absent
     */
    public Feed<V> build() {
      boolean cluster = owner.isCluster();
      String key =
          this.key != null ? this.key : cluster && !hasHashTag(name) ? "{" + name + "}" : name;
      String counterKey =
          this.counterKey != null ? this.counterKey : cluster ? key + ":counter" : "counter";
      if (key.isBlank() || counterKey.isBlank() || counterField.isBlank()) {
        throw new IllegalArgumentException(
            "feed '" + name + "': key, counter hash and counter field must not be blank");
      }
      if (chunkSize < 1 || chunkSize > RedisCache.MAX_CHUNK_SIZE) {
        throw new IllegalArgumentException(
            "feed '"
                + name
                + "': chunkSize must be 1 to "
                + RedisCache.MAX_CHUNK_SIZE
                + ", got "
                + chunkSize);
      }
      if (cluster && !hasHashTag(key)) {
        throw new IllegalArgumentException(
            "feed '"
                + name
                + "': on a Redis Cluster the key must carry a hash tag,"
                + " such as {"
                + key
                + "}, so that its buckets ("
                + StowageKeys.feedBucket(key, 0)
                + ", ...) share its"
                + " slot; got '"
                + key
                + "'");
      }
      if (cluster && SlotHash.getSlot(counterKey) != SlotHash.getSlot(key)) {
        throw new IllegalArgumentException(
            "feed '"
                + name
                + "': on a Redis Cluster the counter hash must be in the"
                + " slot of the key '"
                + key
                + "' (carry its hash tag), such as "
                + key
                + ":counter; got '"
                + counterKey
                + "'");
      }
      KeyNamespaces.Reservation namespace =
          owner
              .keyNamespaces()
              .reserve(KeyNamespaces.Namespace.ofFeed(name, key, counterKey, counterField));
      try {
        WriteCodec<V> codec =
            (encoding != null ? encoding : Encoding.defaultFor(type))
                .writeCodec(
                    owner,
                    StowageKeys.learnedByFeed(key),
                    ForkJoinPool.commonPool(),
                    "feed '" + name + "'");
        return namespace.heldBy(
            new RedisFeed<>(
                    owner.session(),
                    new FeedSettings<>(
                        name,
                        key,
                        counterKey,
                        counterField,
                        codec,
                        owner.preload(),
                        chunkSize,
                        nearCache == null
                            ? null
                            : owner.nearCaches(nearCache, key, true, "feed '" + name + "'"),
                        sealFullBuckets))
                .blocking());
      } catch (RuntimeException | Error e) {
        namespace.release();
        throw e;
      }
    }

    /**
     * Whether {@code key} has a hash tag as Redis Cluster reads it: a <code>{</code> followed later
     * by a <code>}</code> with at least one character between them, the first such pair deciding.
     */
    static boolean hasHashTag(String key) {
      int open = key.indexOf('{');
      if (open < 0) {
        return false;
      }
      int close = key.indexOf('}', open + 1);
      return close > open + 1;
    }
  }
}
