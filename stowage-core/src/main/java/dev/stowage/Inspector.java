package dev.stowage;

import static java.util.Objects.requireNonNull;

import dev.stowage.codec.Codecs;
import dev.stowage.internal.codec.MsgpackBounds;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.connection.SharedCommands;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CodecIds;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.format.Schemas;
import dev.stowage.internal.format.StowageKeys;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisSortedSetCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What Stowage stores in Redis, for tools: the inspector, dashboards, benchmarks and migrations.
 * Taken from {@link Stowage#inspector()}; it reads through that Stowage's connection, dictionaries,
 * schemas and decompression budget, so it reads exactly what a cache would.
 *
 * <p>The stored format itself (envelope bytes, ids, key names, feed members) is not public API and
 * may change in any release; this class describes it in terms that stay: a value's codec and
 * compression by name, its dictionary and schema ids, its sizes, its decoded payload, the entries
 * of a feed, the dictionaries and schemas kept in Redis. {@link Keys} names the keys a tool may
 * need (ACL rules, clean-up), which stay stable within a major version.
 *
 * <pre>{@code
 * Inspector inspector = stowage.inspector();
 * inspector.describe(redisValue).ifPresent(v -> System.out.println(v.codecName() + " " + v.size()));
 * for (Inspector.FeedEntry entry : inspector.feedEntries("board")) { ... }
 * }</pre>
 *
 * <p>Thread-safe. Every method that reads Redis throws a {@link StowageException} when Redis fails.
 */
public final class Inspector {
  /** The largest payload the inspector decompresses: 64 MiB, more than any cache writes. */
  private static final int MAX_INSPECTED_SIZE = 64 * 1024 * 1024;

  /** A sealed feed bucket's payload is at most this, and readers refuse more. */
  private static final int MAX_SEALED_PAYLOAD = 256 * 1024;

  private final Stowage stowage;

  Inspector(Stowage stowage) {
    this.stowage = stowage;
  }

  /**
   * The envelope header of a stored value, read without Redis; empty when the value has no envelope
   * (written by a legacy codec, or not by Stowage).
   *
   * @throws EnvelopeException if the value starts as an envelope but its header is malformed
   */
  public static Optional<Header> header(byte[] value) {
    requireNonNull(value, "value");
    if (!Envelope.isEnvelope(value)) {
      return Optional.empty();
    }
    return Optional.of(Header.of(Envelope.readHeader(value), value.length));
  }

  /** Whether {@code value} is the marker a cache stores for a key it caches as absent. */
  public static boolean isAbsentMarker(byte[] value) {
    return Envelope.isAbsentMarker(requireNonNull(value, "value"));
  }

  /**
   * The header of a stored value, as {@link #header} reads it; empty without an envelope. The same
   * as the static method, for callers that hold an inspector.
   *
   * @throws EnvelopeException if the header is malformed
   */
  public Optional<Header> describe(byte[] value) {
    return header(value);
  }

  /**
   * The payload of an envelope, decompressed: what its codec wrote. The zstd dictionary it names is
   * read from Redis; the decompression budget is the Stowage's.
   *
   * @throws EnvelopeException if the value has no envelope, or its payload is corrupt or too large
   * @throws DictionaryNotFoundException if its dictionary is not in Redis
   * @throws MissingLibraryException if its compression library is absent
   */
  public byte[] payload(byte[] value) {
    return rawReader(MAX_INSPECTED_SIZE).decodePayload(requireNonNull(value, "value"));
  }

  /**
   * Decodes a stored value as a cache of {@code encoding} would: an envelope by the codec it names
   * (among the codec, the codecs also read), a value without one by the legacy codec.
   *
   * @throws StowageException as {@link Encoding.Serializer#decode} does
   */
  public <V> V decode(byte[] value, Encoding<V> encoding) {
    return requireNonNull(encoding, "encoding").readerFor(stowage).decode(value);
  }

  /**
   * The ids of the zstd dictionaries stored in Redis, ascending (found with {@code SCAN}, on a
   * cluster over every master).
   */
  public List<Long> dictionaryIds() {
    return stowage.dictionaries().list();
  }

  /**
   * The bytes of a stored zstd dictionary, checked against its id; empty when Redis has none with
   * that id.
   */
  public Optional<byte[]> dictionary(long id) {
    try {
      return Optional.of(stowage.dictionaries().resolve(id).bytes());
    } catch (DictionaryNotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether Redis holds the zstd dictionary {@code id} now, whatever this process has loaded:
   * whether other processes can read the values written with it. One command, so a health check can
   * ask it often.
   */
  public boolean isDictionaryStored(long id) {
    return stowage.dictionaries().isStored(id);
  }

  /** The name of the codec id values carry, such as {@code "json"}, or {@code "codec-<id>"}. */
  public static String codecName(int codecId) {
    return CodecIds.name(codecId);
  }

  /** The id Stowage gives a zstd dictionary of these bytes, as values and keys name it. */
  public static long dictionaryId(byte[] dictionary) {
    return ZstdDictionary.idOf(requireNonNull(dictionary, "dictionary"));
  }

  /** A dictionary id as values and keys show it: eight lowercase hex digits. */
  public static String hexId(long dictionaryId) {
    return ZstdDictionary.hexId(dictionaryId);
  }

  /**
   * Deletes a zstd dictionary from Redis, with its metadata: values that name it can no longer be
   * read by any process that has not loaded it yet. For clean-up after a benchmark or a migration.
   *
   * @return whether Redis held it
   */
  public boolean forgetDictionary(long id) {
    return delete(Keys.dictionary(id), Keys.dictionaryInfo(id)) > 0;
  }

  /**
   * Forgets the dictionaries a cache learned (the record, per codec, of which one it writes with),
   * so that the next process to write it learns again; the dictionaries themselves stay, for the
   * values that name them.
   *
   * @return the ids of the dictionaries the record named, ascending; empty when there was none
   */
  public List<Long> forgetLearnedByCache(String cacheName) {
    return forgetLearned(Keys.learnedByCache(requireNonNull(cacheName, "cacheName")));
  }

  /** {@link #forgetLearnedByCache} for a feed, named by its key. */
  public List<Long> forgetLearnedByFeed(String feedKey) {
    return forgetLearned(Keys.learnedByFeed(requireNonNull(feedKey, "feedKey")));
  }

  private List<Long> forgetLearned(String recordKey) {
    RedisClusterCommands<byte[], byte[]> redis = sync();
    List<Long> ids = new ArrayList<>();
    try {
      for (byte[] hexId : redis.hgetall(utf8(recordKey)).values()) {
        try {
          ids.add(Long.parseLong(new String(hexId, StandardCharsets.UTF_8), 16));
        } catch (NumberFormatException e) {
          // not an id: nothing Stowage wrote, forgotten all the same
        }
      }
      redis.del(utf8(recordKey));
    } catch (RedisException e) {
      throw new StowageException("could not forget " + recordKey + ": " + e.getMessage(), e);
    }
    return ids.stream().distinct().sorted().toList();
  }

  /** The writer schema stored under a fingerprint, as values name it; empty when Redis has none. */
  public Optional<String> schema(int fingerprint) {
    try {
      return Optional.of(stowage.schemas().resolve(fingerprint));
    } catch (SchemaNotFoundException e) {
      return Optional.empty();
    }
  }

  /** The fingerprint values carry for a writer schema of this text. */
  public static int schemaFingerprint(String schema) {
    return Schemas.fingerprint(requireNonNull(schema, "schema"));
  }

  /** A schema fingerprint as seven or more lower-case hex digits, as messages and tools show it. */
  public static String hexFingerprint(int fingerprint) {
    return Schemas.hex(fingerprint);
  }

  /**
   * Deletes a writer schema from Redis.
   *
   * @return whether Redis held it
   */
  public boolean forgetSchema(int fingerprint) {
    return delete(Keys.schema(fingerprint)) > 0;
  }

  /**
   * The entries a feed holds in Redis, in ascending score: those of its open buckets and of its
   * sealed ones, whose frame is decompressed (through the feed's dictionary, read from Redis) and
   * split. Each entry's value is its envelope, as stored, which {@link #decode} or {@link #header}
   * read.
   *
   * @param feedKey the feed's key: its name, as given to {@link Stowage#feed}
   * @throws EnvelopeException if a sealed bucket cannot be read
   */
  public List<FeedEntry> feedEntries(String feedKey) {
    requireNonNull(feedKey, "feedKey");
    RedisClusterCommands<byte[], byte[]> redis = sync();
    List<FeedEntry> entries = new ArrayList<>();
    try {
      List<ScoredValue<byte[]>> index =
          ((RedisSortedSetCommands<byte[], byte[]>) redis).zrangeWithScores(utf8(feedKey), 0, -1);
      for (ScoredValue<byte[]> bucketMember : index) {
        long bucket = (long) bucketMember.getScore();
        String member = new String(bucketMember.getValue(), StandardCharsets.UTF_8);
        if (member.indexOf(':') >= 0) {
          byte[] sealed = redis.get(utf8(Keys.feedSealedBucket(feedKey, bucket)));
          if (sealed == null) {
            continue;
          }
          byte[] payload = rawReader(MAX_SEALED_PAYLOAD).decodePayload(sealed);
          List<byte[]> members;
          try {
            members = FeedLayout.sealedMembers(payload);
          } catch (IllegalArgumentException e) {
            throw new EnvelopeException(
                "sealed bucket " + bucket + " of feed " + feedKey + ": " + e.getMessage(), e);
          }
          for (byte[] stored : members) {
            add(entries, stored, bucket, true);
          }
        } else {
          for (byte[] stored : redis.lrange(utf8(Keys.feedBucket(feedKey, bucket)), 0, -1)) {
            add(entries, stored, bucket, false);
          }
        }
      }
    } catch (RedisException e) {
      throw new StowageException(
          "could not read the entries of feed " + feedKey + ": " + e.getMessage(), e);
    }
    return List.copyOf(entries);
  }

  /**
   * Why {@code length} bytes of {@code data} at {@code offset} are not one MessagePack value whose
   * declared lengths and counts fit the bytes and whose nesting is at most 1,000 deep, or empty
   * when they are: the check the MessagePack codec makes before it lets a library read a value, for
   * a tool that reads MessagePack without a codec. Nothing is allocated for what the bytes declare.
   * Needs no library.
   *
   * @throws IndexOutOfBoundsException if the range is outside {@code data}
   */
  public static Optional<String> messagePackProblem(byte[] data, int offset, int length) {
    requireNonNull(data, "data");
    if (offset < 0 || length < 0 || offset > data.length - length) {
      throw new IndexOutOfBoundsException(
          "offset " + offset + " and length " + length + " outside " + data.length + " bytes");
    }
    return Optional.ofNullable(MsgpackBounds.problem(data, offset, length));
  }

  /**
   * The score a feed entry starts with, as a feed's bucket stores it (an open bucket's list
   * element, or an entry of a sealed bucket's payload); empty when the element does not start with
   * a well-formed score, so it is not a feed entry.
   */
  public static OptionalLong feedEntryScore(byte[] element) {
    long score = FeedLayout.score(requireNonNull(element, "element"));
    return score < 0 ? OptionalLong.empty() : OptionalLong.of(score);
  }

  /**
   * What follows a feed entry's score: the bytes of its value, an envelope unless a legacy codec
   * wrote it; empty when the element is not a feed entry ({@link #feedEntryScore}).
   */
  public static Optional<byte[]> feedEntryValue(byte[] element) {
    return Optional.ofNullable(FeedLayout.envelope(requireNonNull(element, "element")));
  }

  /**
   * The entries of a sealed bucket, from its value's {@linkplain #payload payload}, in ascending
   * score.
   *
   * @throws EnvelopeException if the payload is not a sealed bucket's
   */
  public static List<byte[]> sealedBucketEntries(byte[] payload) {
    try {
      return FeedLayout.sealedMembers(requireNonNull(payload, "payload"));
    } catch (IllegalArgumentException e) {
      throw new EnvelopeException("not a sealed feed bucket: " + e.getMessage(), e);
    }
  }

  /**
   * The bucket a member of a feed's index (the sorted set under the feed's key) names: an open
   * bucket, {@code <n>}, or a sealed one, {@code <n>:<count>}; empty for any other member, so a
   * tool can tell a feed's index from another sorted set.
   */
  public static Optional<FeedBucket> feedBucket(byte[] indexMember) {
    requireNonNull(indexMember, "indexMember");
    if (indexMember.length > 24) {
      return Optional.empty();
    }
    String member = new String(indexMember, StandardCharsets.ISO_8859_1);
    int colon = member.indexOf(':');
    int sealedCount = colon < 0 ? 0 : FeedLayout.sealedCount(member);
    long bucket = FeedLayout.bucketNumber(colon < 0 ? member : member.substring(0, colon));
    return sealedCount < 0 || bucket < 0
        ? Optional.empty()
        : Optional.of(new FeedBucket(bucket, sealedCount));
  }

  private static void add(List<FeedEntry> entries, byte[] stored, long bucket, boolean sealed) {
    long score = FeedLayout.score(stored);
    byte[] envelope = FeedLayout.envelope(stored);
    if (score >= 0 && envelope != null) {
      entries.add(new FeedEntry(score, bucket, sealed, envelope));
    }
  }

  private long delete(String... keys) {
    long deleted = 0;
    RedisClusterCommands<byte[], byte[]> redis = sync();
    try {
      for (String key : keys) {
        deleted += redis.del(utf8(key));
      }
    } catch (RedisException e) {
      throw new StowageException(
          "could not delete " + String.join(", ", keys) + ": " + e.getMessage(), e);
    }
    return deleted;
  }

  private RedisClusterCommands<byte[], byte[]> sync() {
    return SharedCommands.sync(stowage.session().shared());
  }

  private EnvelopeCodec<byte[]> rawReader(int maxDecodedSize) {
    return EnvelopeCodec.builder(Codecs.jsonBytes())
        .dictionaries(stowage.dictionaries())
        .schemas(stowage.schemas())
        .decompressionBudget(stowage.decompressionBudget())
        .maxDecodedSize(maxDecodedSize)
        .build();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "Inspector[" + stowage.address() + "]";
  }

  /**
   * A stored value's envelope header.
   *
   * @param codecId the id of the codec that wrote the payload, 1 to 255
   * @param codecName its name, such as {@code "msgpack"}, or {@code "codec-<id>"} for an id Stowage
   *     does not define
   * @param compressionName the payload's compression: {@code none}, {@code lz4}, {@code zstd},
   *     {@code zstd-dict} or {@code zstd-dict-magicless}
   * @param dictionaryId the zstd dictionary it names, if any
   * @param schemaVersion the schema version or writer-schema fingerprint it carries, if any
   * @param headerSize the header's size in bytes
   * @param payloadSize the stored (compressed, if it is) payload's size in bytes
   */
  public record Header(
      int codecId,
      String codecName,
      String compressionName,
      OptionalLong dictionaryId,
      OptionalInt schemaVersion,
      int headerSize,
      int payloadSize) {

    static Header of(Envelope.Header header, int valueSize) {
      return new Header(
          header.codecId(),
          header.codecName(),
          header.compressionName(),
          header.hasDictionary() ? OptionalLong.of(header.dictionaryId()) : OptionalLong.empty(),
          header.hasSchemaVersion() ? OptionalInt.of(header.schemaVersion()) : OptionalInt.empty(),
          header.payloadOffset(),
          valueSize - header.payloadOffset());
    }

    /** Whether the payload is stored compressed. */
    public boolean isCompressed() {
      return !compressionName.equals(CompressionIds.name(CompressionIds.NONE));
    }

    /** A short description, such as {@code "json+zstd-dict(3a5f09c1) schema 2"}. */
    public String describe() {
      StringBuilder text = new StringBuilder(codecName).append('+').append(compressionName);
      dictionaryId.ifPresent(id -> text.append('(').append(hexId(id)).append(')'));
      schemaVersion.ifPresent(version -> text.append(" schema ").append(version));
      return text.toString();
    }
  }

  /**
   * A bucket named by a feed's index.
   *
   * @param bucket the bucket's number: its entries' scores divided by the bucket size
   * @param sealedCount for a sealed bucket the number of entries its index member records, 0 for an
   *     open bucket
   */
  public record FeedBucket(long bucket, int sealedCount) {
    /** Whether the bucket is sealed: its entries stored together in one string. */
    public boolean sealed() {
      return sealedCount > 0;
    }

    /**
     * The key of the bucket, a string when sealed and a list when open, of the feed {@code key}.
     */
    public String key(String feedKey) {
      return sealed() ? Keys.feedSealedBucket(feedKey, bucket) : Keys.feedBucket(feedKey, bucket);
    }
  }

  /** One entry of a feed as stored: its score, its bucket, and its envelope. */
  public static final class FeedEntry {
    private final long score;
    private final long bucket;
    private final boolean sealed;
    private final byte[] value;

    FeedEntry(long score, long bucket, boolean sealed, byte[] value) {
      this.score = score;
      this.bucket = bucket;
      this.sealed = sealed;
      this.value = value;
    }

    /** The entry's score. */
    public long score() {
      return score;
    }

    /** The bucket that holds it. */
    public long bucket() {
      return bucket;
    }

    /** Whether its bucket is sealed (its entries compressed together, as one frame). */
    public boolean sealed() {
      return sealed;
    }

    /** Its envelope, as stored: a copy. */
    public byte[] value() {
      return value.clone();
    }

    @Override
    public String toString() {
      return "FeedEntry[score="
          + score
          + ", bucket="
          + bucket
          + (sealed ? ", sealed" : "")
          + ", "
          + value.length
          + " bytes]";
    }
  }

  /**
   * The names of the keys Stowage writes besides the caches' and feeds' own: dictionaries, schemas,
   * learned-dictionary records and feed buckets. Every one starts with {@link #NAMESPACE} but a
   * feed's buckets, which start with the feed's key (and so share its Cluster hash slot).
   */
  public static final class Keys {
    /** The prefix of every key Stowage writes for itself. */
    public static final String NAMESPACE = StowageKeys.NAMESPACE;

    private Keys() {}

    /** What the key of every zstd dictionary starts with. */
    public static final String DICTIONARY_PREFIX = StowageKeys.DICTIONARY_PREFIX;

    /** What the key of every zstd dictionary's metadata starts with. */
    public static final String DICTIONARY_INFO_PREFIX = StowageKeys.DICTIONARY_INFO_PREFIX;

    /** What the key of every writer schema starts with. */
    public static final String SCHEMA_PREFIX = StowageKeys.SCHEMA_PREFIX;

    /**
     * What separates a feed's key from a sealed bucket's number in the bucket's key, {@code
     * <feedKey>:s:<n>}.
     */
    public static final String FEED_SEALED_INFIX = StowageKeys.FEED_SEALED_INFIX;

    /** The key of a zstd dictionary. */
    public static String dictionary(long id) {
      return StowageKeys.dictionary(id);
    }

    /** The key of a zstd dictionary's metadata. */
    public static String dictionaryInfo(long id) {
      return StowageKeys.dictionaryInfo(id);
    }

    /** The key of a writer schema. */
    public static String schema(int fingerprint) {
      return StowageKeys.schema(fingerprint);
    }

    /** The hash that records the dictionary a cache learned. */
    public static String learnedByCache(String cacheName) {
      return StowageKeys.learnedByCache(cacheName);
    }

    /** The hash that records the dictionary a feed learned. */
    public static String learnedByFeed(String feedKey) {
      return StowageKeys.learnedByFeed(feedKey);
    }

    /** The list of an open bucket of a feed. */
    public static String feedBucket(String feedKey, long bucket) {
      return StowageKeys.feedBucket(feedKey, bucket);
    }

    /** The string of a sealed bucket of a feed. */
    public static String feedSealedBucket(String feedKey, long bucket) {
      return StowageKeys.feedSealedBucket(feedKey, bucket);
    }

    /** The hash of a packed cache's bucket, for a cache whose keys start with {@code keyPrefix}. */
    public static String packedBucket(String keyPrefix, int bucket) {
      return CacheLayout.bucketKey(keyPrefix, bucket);
    }
  }
}
