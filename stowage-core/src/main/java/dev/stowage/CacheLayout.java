package dev.stowage;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link RedisCache} lays its entries out in Redis, chosen with {@link
 * RedisCache.Builder#layout(CacheLayout)}. Part of the stored format: a cache must be read with the
 * layout (and, when packed, the bucket count) it was written with.
 *
 * <ul>
 *   <li>{@link #keyPerValue()}, the default: one Redis string per entry, {@code <prefix><key>}.
 *   <li>{@link #packed(long)} and {@link #packedBuckets(int)}: entries in a fixed number of Redis
 *       hashes, the <em>buckets</em>. Entry {@code key} lives in bucket {@code n = CRC-32C(UTF-8 of
 *       key) mod buckets}, the hash {@code <prefix>{n}} (a hash tag, so that a bucket is one slot
 *       on a Redis Cluster), under the field {@code key} (the key's text, without the prefix), and
 *       its value is the same envelope the key-per-value layout writes.
 * </ul>
 *
 * <p>A Redis key costs 50 to 70 bytes of its own (its entry in the keyspace, its object, and the
 * key's text), which for values of under a hundred bytes is most of the memory. A small hash is
 * kept as one listpack, a few bytes per field, as long as it has at most {@code
 * hash-max-listpack-entries} fields (128 by default) and no field or value is longer than {@code
 * hash-max-listpack-value} (64 bytes by default); otherwise Redis turns it into a hashtable, which
 * costs about as much per field as a key does. Buckets are sized for {@value #FIELDS_PER_BUCKET}
 * entries on average, so that they stay under the first limit; values longer than the second are
 * counted in {@link CacheStats#oversizedValues()}.
 *
 * <p><b>What the packed layout gives up.</b> Redis 7.0 has no expiry per hash field, so the TTL
 * applies to a bucket: each write gives its bucket the cache's (jittered) TTL unless the bucket
 * already expires sooner ({@code PEXPIRE ... LT}), and every entry in it goes when it expires. An
 * entry therefore lives at most the TTL, also after the TTL was shortened (the next write into a
 * bucket brings the bucket's expiry down to it), and less when it was written into a bucket that
 * expires sooner. A cache {@linkplain RedisCache.Builder#noExpiry() without a TTL} leaves a
 * bucket's TTL as it finds it: its entries go with a bucket that a writer with a TTL gave one.
 *
 * <p>The packed layout offers what the key-per-value one does, within what a hash field can hold.
 * The {@linkplain RedisCache.Builder#distributedLoadLock load lock} works alike (its lock is a key
 * of its own). An {@linkplain RedisCache.Builder#cacheAbsent absent marker} is a field of its
 * bucket, and as a field has no TTL of its own, writing one shortens its bucket's TTL to the absent
 * TTL ({@code PEXPIRE ... LT}): the marker lives no longer than it should, and the bucket's other
 * entries expire with it. A {@linkplain RedisCache.Builder#nearCache near cache} keeps entries, but
 * Redis's client tracking invalidates whole keys, here whole buckets: a write to one entry drops
 * the near copies of every entry of its bucket in every process, and a copy is kept no longer than
 * its bucket's TTL.
 *
 * <p>Immutable and thread-safe.
 */
public final class CacheLayout {
  /** The mean number of entries per bucket that {@link #packed(long)} sizes for. */
  public static final int FIELDS_PER_BUCKET = 64;

  /** The most buckets a packed cache may have: 2<sup>24</sup>, room for about a billion entries. */
  public static final int MAX_BUCKETS = 1 << 24;

  private static final CacheLayout KEY_PER_VALUE = new CacheLayout(0);

  private final int buckets;

  private CacheLayout(int buckets) {
    this.buckets = buckets;
  }

  /** One Redis string per entry: the default. */
  public static CacheLayout keyPerValue() {
    return KEY_PER_VALUE;
  }

  /**
   * Entries packed into hashes, enough of them for {@code expectedEntries} at {@value
   * #FIELDS_PER_BUCKET} a bucket (at least one bucket). The count is fixed once data is written:
   * give the size the cache is expected to reach, not today's.
   *
   * @throws IllegalArgumentException if {@code expectedEntries} is under 1 or needs more than
   *     {@link #MAX_BUCKETS} buckets
   */
  public static CacheLayout packed(long expectedEntries) {
    long most = (long) MAX_BUCKETS * FIELDS_PER_BUCKET;
    if (expectedEntries < 1 || expectedEntries > most) {
      throw new IllegalArgumentException(
          "packed: expectedEntries must be from 1 to "
              + most
              + " ("
              + MAX_BUCKETS
              + " buckets of "
              + FIELDS_PER_BUCKET
              + "), got "
              + expectedEntries);
    }
    return new CacheLayout((int) ((expectedEntries + FIELDS_PER_BUCKET - 1) / FIELDS_PER_BUCKET));
  }

  /**
   * Entries packed into exactly {@code buckets} hashes.
   *
   * @throws IllegalArgumentException if {@code buckets} is outside 1 to {@link #MAX_BUCKETS}
   */
  public static CacheLayout packedBuckets(int buckets) {
    if (buckets < 1 || buckets > MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "packedBuckets: buckets must be from 1 to " + MAX_BUCKETS + ", got " + buckets);
    }
    return new CacheLayout(buckets);
  }

  /** Whether entries are packed into buckets. */
  public boolean isPacked() {
    return buckets > 0;
  }

  /** How many buckets a packed layout has; 0 for {@link #keyPerValue()}. */
  public int buckets() {
    return buckets;
  }

  /**
   * The bucket of the entry whose key's text is {@code keyText}: CRC-32C of its UTF-8 bytes, modulo
   * the bucket count.
   *
   * @throws IllegalStateException on the key-per-value layout
   */
  public int bucketOf(String keyText) {
    if (!isPacked()) {
      throw new IllegalStateException("the key-per-value layout has no buckets");
    }
    CRC32C crc = new CRC32C();
    crc.update(keyText.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % buckets);
  }

  /**
   * The Redis key of bucket {@code bucket} of a cache whose key prefix is {@code keyPrefix}: {@code
   * <prefix>{bucket}}.
   */
  public static String bucketKey(String keyPrefix, int bucket) {
    return keyPrefix + "{" + bucket + "}";
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof CacheLayout layout && layout.buckets == buckets;
  }

  @Override
  public int hashCode() {
    return buckets;
  }

  @Override
  public String toString() {
    return isPacked() ? "CacheLayout.packedBuckets(" + buckets + ")" : "CacheLayout.keyPerValue()";
  }
}
