package dev.stowage;

import static java.util.Objects.requireNonNull;

import dev.stowage.compress.Compression;
import dev.stowage.compress.ZstdDictionary;
import dev.stowage.internal.redis.CodecSettings;
import dev.stowage.internal.redis.FeedSettings;
import dev.stowage.internal.redis.RedisFeed;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A newest-first list of values in one Redis sorted set, read by page. Feeds come from
 * {@link Stowage#feed(String, Class)}.
 *
 * <pre>{@code
 * Feed<Post> posts = stowage.feed("board", Post.class).build();
 * long id = posts.add(post);
 * List<Feed.Entry<Post>> newest = posts.page(1, 20);
 * }</pre>
 *
 * <p><b>Layout.</b> Each value gets a score from a counter, a field of a Redis hash incremented
 * with {@code HINCRBY}. The sorted set's member is the score as an unsigned varint followed by the
 * value's {@linkplain Envelope envelope} (encoded and compressed): a page is one
 * {@code ZREVRANGE} and decodes from the members alone, with no second lookup. The score prefix
 * makes every member distinct, so two equal values are two entries. By default the sorted set's
 * key is the feed's name and the counter is field {@code name} of the hash {@code counter}, the
 * layout of the board service that Stowage's first seed describes.
 *
 * <p>A member that cannot be decoded is skipped, counted in {@link #decodeFailures()} and logged
 * once. Redis failures throw {@link CacheUnavailableException} as for {@link RedisCache}. Scores
 * are exact up to 2<sup>53</sup>, as Redis keeps them as doubles. Thread-safe.
 *
 * @param <V> the type of the values
 */
public interface Feed<V> {
  /** The largest page size. */
  int MAX_PAGE_SIZE = 10_000;

  /** The feed's name. */
  String name();

  /**
   * Adds a value as the newest entry, in one round trip (a script increments the counter and adds
   * the member).
   *
   * @return its score
   * @throws CodecException if the value cannot be encoded
   */
  long add(V value);

  /**
   * Adds values as the newest entries, the last one newest: one {@code HINCRBY} reserves their
   * scores, then one {@code ZADD} per chunk, all chunks in flight at once.
   *
   * @return their scores, in the order of {@code values}
   * @throws CodecException if a value cannot be encoded, in which case nothing was sent
   */
  List<Long> addAll(List<? extends V> values);

  /**
   * Stores values at scores of your own (for example ids from a database, when refilling the feed),
   * replacing any entry at the same score, and raises the counter to the largest score so that
   * {@link #add} never reuses one. One script per chunk.
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
   * Removes the entry with this score.
   *
   * @return whether there was one
   */
  boolean remove(long score);

  /** The number of entries. */
  long size();

  /** Removes every entry; the counter keeps its value, so scores are never reused. */
  void clear();

  /** Members skipped since this feed was built because they could not be decoded. */
  long decodeFailures();

  /** The stored bytes, for code that serves values without decoding them. */
  Raw<V> raw();

  /**
   * An entry of a page.
   *
   * @param score its score, from the counter
   * @param value its value
   * @param <V> the type of the value
   */
  record Entry<V>(long score, V value) {}

  /**
   * An entry as stored.
   *
   * @param score its score
   * @param envelope the value's envelope: header and (possibly compressed) payload, a copy
   */
  record StoredEntry(long score, byte[] envelope) {}

  /**
   * The feed's stored bytes: pages of envelopes, for serving values without materialising them.
   *
   * @param <V> the type of the values
   */
  interface Raw<V> {

    /**
     * Page {@code page} (from 1) of {@code size} entries, newest first, undecoded. Members whose
     * score prefix is malformed are skipped and counted; envelopes are not checked.
     *
     * @throws IllegalArgumentException as for {@link Feed#page}
     */
    List<StoredEntry> page(int page, int size);

    /** The codec that writes the feed's values and reads any of them. */
    EnvelopeCodec<V> codec();
  }

  /**
   * Configures a {@link Feed}, from {@link Stowage#feed(String, Class)}. Not thread-safe.
   *
   * @param <V> the type of the values
   */
  final class Builder<V> {
    private final Stowage owner;
    private final String name;
    private final CodecSettings<V> codecSettings;
    private String key;
    private String counterKey = "counter";
    private String counterField;
    private int chunkSize = RedisCache.DEFAULT_CHUNK_SIZE;

    Builder(Stowage owner, String name, Class<V> type) {
      this.owner = owner;
      this.name = name;
      this.codecSettings = new CodecSettings<>(type);
      this.key = name;
      this.counterField = name;
    }

    /** The codec new values are written with; {@code Codecs.defaultFor(type)} by default. */
    public Builder<V> codec(Codec<V> codec) {
      codecSettings.codec(codec);
      return this;
    }

    /** How new values are compressed; {@code Compression.standard()} by default. */
    public Builder<V> compression(Compression compression) {
      codecSettings.compression(compression);
      return this;
    }

    /** Compresses new values with zstd and this dictionary, saved in Redis at {@link #build()}. */
    public Builder<V> dictionary(ZstdDictionary dictionary) {
      codecSettings.dictionary(dictionary);
      return this;
    }

    /** Trains a zstd dictionary on these values at {@link #build()}; see {@link RedisCache.Builder#trainDictionary}. */
    public Builder<V> trainDictionary(Collection<? extends V> samples, int dictionarySize) {
      codecSettings.trainDictionary(samples, dictionarySize);
      return this;
    }

    /** Codecs whose values this feed should also read. */
    @SafeVarargs
    public final Builder<V> alsoRead(Codec<V>... readers) {
      codecSettings.alsoRead(Arrays.asList(requireNonNull(readers, "readers")));
      return this;
    }

    /** The codec for members with no envelope. */
    public Builder<V> legacy(Codec<V> legacyCodec) {
      codecSettings.legacy(legacyCodec);
      return this;
    }

    /** The sorted set's key; the feed's name by default. */
    public Builder<V> key(String key) {
      this.key = requireNonNull(key, "key");
      return this;
    }

    /** The counter: a field of a Redis hash; field {@code name} of hash {@code counter} by default. */
    public Builder<V> counter(String hashKey, String field) {
      this.counterKey = requireNonNull(hashKey, "hashKey");
      this.counterField = requireNonNull(field, "field");
      return this;
    }

    /** Members per {@code ZADD} or script call; {@link RedisCache#DEFAULT_CHUNK_SIZE} by default. */
    public Builder<V> chunkSize(int chunkSize) {
      this.chunkSize = chunkSize;
      return this;
    }

    /**
     * Builds the feed.
     *
     * @throws IllegalArgumentException for a blank key, counter or field, or a chunk size outside
     *     1 to {@link RedisCache#MAX_CHUNK_SIZE}
     * @throws MissingLibraryException if the codec's or compression's library is absent
     */
    public Feed<V> build() {
      if (key.isBlank() || counterKey.isBlank() || counterField.isBlank()) {
        throw new IllegalArgumentException("feed '" + name + "': key, counter hash and counter field must not be blank");
      }
      if (chunkSize < 1 || chunkSize > RedisCache.MAX_CHUNK_SIZE) {
        throw new IllegalArgumentException("feed '" + name + "': chunkSize must be 1 to " + RedisCache.MAX_CHUNK_SIZE
            + ", got " + chunkSize);
      }
      EnvelopeCodec<V> codec = codecSettings.build(owner.dictionaries(), owner::useDictionary, "feed '" + name + "'");
      return new RedisFeed<>(owner.session(), new FeedSettings<>(name, key, counterKey, counterField, codec, chunkSize));
    }
  }
}
