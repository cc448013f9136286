package dev.stowage.internal.format;

import static java.util.Objects.requireNonNull;

import dev.stowage.Encoding;
import dev.stowage.RedisCache;

/**
 * The names of the Redis keys that Stowage writes on its own account: the one place they are
 * defined. A cache's and a feed's own keys are the application's (a cache's key prefix and keys, a
 * feed's key and its counter); every other key is named here. Part of the stored format: none of
 * these names ever changes, and each is guarded by a test. A cache's key prefix, or a feed's key,
 * bucket or counter, that could cover one of the families below is refused when it is built ({@code
 * stowage:} itself included); other names under {@code stowage:} stay the application's.
 *
 * <table>
 * <caption>The keys</caption>
 * <tr><th>key</th><th>type</th><th>holds</th><th>written by</th></tr>
 * <tr><td>{@code stowage:schema:<7 hex digits>}</td><td>string</td><td>a codec schema, under its
 *     {@linkplain Schemas#fingerprint fingerprint}</td><td>every cache and feed, {@code SET NX}</td></tr>
 * <tr><td>{@code stowage:dict:<8 hex digits>}</td><td>string</td><td>a zstd dictionary, under its
 *     id</td><td>{@code internal.store.DictionaryStore},
 *     {@code SET NX}</td></tr>
 * <tr><td>{@code stowage:dict-info:<8 hex digits>}</td><td>hash</td><td>how {@code stowage dict train}
 *     trained that dictionary</td><td>the {@code stowage} command only; the library never reads
 *     it</td></tr>
 * <tr><td>{@code stowage:learned:cache:<cache name>}</td><td>hash</td><td>the id of the dictionary
 *     a cache learned, per codec name</td><td>a cache that learns, {@code HSETNX}</td></tr>
 * <tr><td>{@code stowage:learned:feed:<feed key>}</td><td>hash</td><td>the same for a feed</td>
 *     <td>a feed that learns, {@code HSETNX}</td></tr>
 * <tr><td>{@code stowage:lock:<value key>}</td><td>string</td><td>the distributed load lock of a
 *     cache's value key, with a random token</td><td>a cache with a load lock, {@code SET NX PX},
 *     released by a compare-and-delete script</td></tr>
 * <tr><td>{@code <feed key>:b:<bucket>}</td><td>list</td><td>a bucket of a feed, beside the feed's
 *     index under the feed's own key (see {@link FeedLayout})</td><td>the feed's scripts</td></tr>
 * <tr><td>{@code <feed key>:s:<bucket>}</td><td>string</td><td>a sealed bucket of a feed (see
 *     {@link FeedLayout})</td><td>the feed's scripts</td></tr>
 * <tr><td>{@code <feed key>:h:<bucket>}</td><td>string</td><td>a hold that keeps a bucket a write
 *     just opened from being sealed again for a second; readers never read it</td><td>the feed's
 *     scripts, {@code SET PX}</td></tr>
 * </table>
 *
 * <p><b>Redis Cluster.</b> Under Cluster, every key that one script or one multi-key command
 * touches must hash to the same slot, which a <em>hash tag</em> arranges ({@code {...}} in the key:
 * only the text between the first opening brace and the next closing brace is hashed). No name here
 * contains a brace, so a key built from an application's key keeps that key's hash tag: {@code
 * stowage:lock:{user:42}:profile} is in the slot of {@code {user:42}:profile}, and {@code
 * {board}:b:7} in the slot of the feed {@code {board}}. What needs it, and what does not:
 *
 * <ul>
 *   <li>A feed's scripts touch the feed's index, its buckets (named inside the script from the
 *       index's key) and its counter hash together. So a feed under Cluster needs a hash tag in its
 *       key and its counter's key in the same slot ({@code {board}} and {@code {board}:counter},
 *       the defaults there); the bucket names need no change, as they inherit the feed key's tag,
 *       and Redis lets a script touch keys it did not declare when they are in the slot of those it
 *       did.
 *   <li>{@code putAll} with a TTL runs one script over a chunk of a cache's keys, and {@code
 *       getAll} ({@code MGET}), {@code deleteAll} ({@code DEL}) and {@code putAll} without a TTL
 *       ({@code MSET}) send one command per chunk: under Cluster, one per slot and chunk. These are
 *       the application's keys, not names defined here.
 *   <li>Schemas, dictionaries, training records and learned-dictionary records are each read and
 *       written alone, one key per command: they need no hash tag and may live in any slot.
 *   <li>The load lock is taken and released (the release script touches the lock alone) on its own,
 *       and the value is read and written separately: no tag is needed. Should a script ever write
 *       the value and release the lock together, the lock already shares the value key's slot
 *       whenever that key has a hash tag.
 * </ul>
 */
public final class StowageKeys {
  /** What every name Stowage owns starts with, as an ACL key pattern would: {@code ~stowage:*}. */
  public static final String NAMESPACE = "stowage:";

  /** The prefix of the schema keys; see {@link #schema}. */
  public static final String SCHEMA_PREFIX = NAMESPACE + "schema:";

  /** The prefix of the dictionary keys; see {@link #dictionary}. */
  public static final String DICTIONARY_PREFIX = NAMESPACE + "dict:";

  /** The prefix of the dictionaries' training records; see {@link #dictionaryInfo}. */
  public static final String DICTIONARY_INFO_PREFIX = NAMESPACE + "dict-info:";

  /** The prefix of the records of the dictionaries caches learned; see {@link #learnedByCache}. */
  public static final String LEARNED_BY_CACHE_PREFIX = NAMESPACE + "learned:cache:";

  /** The prefix of the records of the dictionaries feeds learned; see {@link #learnedByFeed}. */
  public static final String LEARNED_BY_FEED_PREFIX = NAMESPACE + "learned:feed:";

  /** The prefix of the load locks; see {@link #loadLock}. */
  public static final String LOCK_PREFIX = NAMESPACE + "lock:";

  /** What joins a feed's key and a bucket's number in the bucket's key; see {@link #feedBucket}. */
  public static final String FEED_BUCKET_INFIX = ":b:";

  /**
   * What joins a feed's key and a sealed bucket's number in its key; see {@link #feedSealedBucket}.
   */
  public static final String FEED_SEALED_INFIX = ":s:";

  /**
   * What joins a feed's key and a bucket's number in the key of its hold; see {@link
   * #feedSealHold}.
   */
  public static final String FEED_HOLD_INFIX = ":h:";

  private StowageKeys() {}

  /**
   * The schema with this fingerprint: {@code stowage:schema:} and the fingerprint as seven
   * lower-case hex digits ({@link Schemas#hex}).
   */
  public static String schema(int fingerprint) {
    return SCHEMA_PREFIX + Schemas.hex(fingerprint);
  }

  /**
   * The zstd dictionary with this id: {@code stowage:dict:} and the id as eight lower-case hex
   * digits ({@link CompressionIds#dictionaryHex(long)}).
   */
  public static String dictionary(long id) {
    return DICTIONARY_PREFIX + CompressionIds.dictionaryHex(id);
  }

  /**
   * The hash in which {@code stowage dict train} records how it trained the dictionary with this id
   * (the pattern it matched, the samples it used): {@code stowage:dict-info:<8 hex digits>}.
   */
  public static String dictionaryInfo(long id) {
    return DICTIONARY_INFO_PREFIX + CompressionIds.dictionaryHex(id);
  }

  /**
   * The hash that records the dictionary the cache named {@code cacheName} learned, field: the
   * codec's name, value: the dictionary's id in hex ({@link Encoding#learnDictionary}): {@code
   * stowage:learned:cache:<cacheName>}.
   */
  public static String learnedByCache(String cacheName) {
    return LEARNED_BY_CACHE_PREFIX + requireNonNull(cacheName, "cacheName");
  }

  /**
   * The hash that records the dictionary the feed under {@code feedKey} learned, as for a cache
   * ({@link Encoding#learnDictionary}): {@code stowage:learned:feed:<feedKey>}.
   */
  public static String learnedByFeed(String feedKey) {
    return LEARNED_BY_FEED_PREFIX + requireNonNull(feedKey, "feedKey");
  }

  /**
   * The distributed load lock of a cache's value under {@code valueKey} (the whole key, the cache's
   * prefix included; {@link RedisCache.Builder#distributedLoadLock}): {@code
   * stowage:lock:<valueKey>}.
   */
  public static String loadLock(String valueKey) {
    return LOCK_PREFIX + requireNonNull(valueKey, "valueKey");
  }

  /**
   * The list that holds bucket {@code bucket} of the feed under {@code feedKey}: {@code
   * <feedKey>:b:<bucket>}, the bucket in decimal ({@link FeedLayout#bucketOf}).
   */
  public static String feedBucket(String feedKey, long bucket) {
    return requireNonNull(feedKey, "feedKey") + FEED_BUCKET_INFIX + bucket;
  }

  /**
   * The string that holds bucket {@code bucket} of the feed under {@code feedKey} once it is
   * sealed: {@code <feedKey>:s:<bucket>}, the bucket in decimal ({@link FeedLayout#sealedPayload}).
   */
  public static String feedSealedBucket(String feedKey, long bucket) {
    return requireNonNull(feedKey, "feedKey") + FEED_SEALED_INFIX + bucket;
  }

  /**
   * The hold on bucket {@code bucket} of the feed under {@code feedKey}: {@code
   * <feedKey>:h:<bucket>}, a short-lived string (it expires a second after a write set it) that a
   * write sets when it finds the bucket sealed, and while which no writer seals the bucket again,
   * so that concurrent writes into a sealed bucket never keep opening it for each other. No reader
   * reads it.
   */
  public static String feedSealHold(String feedKey, long bucket) {
    return requireNonNull(feedKey, "feedKey") + FEED_HOLD_INFIX + bucket;
  }
}
