package dev.stowage;

import static java.util.Objects.requireNonNull;

import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.envelope.EnvelopeCodecBuilder;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.redis.WriteCodec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * How a cache or a feed writes its values and which others it reads: the codec, the compression
 * policy, the codecs also read, the legacy codec and the largest decoded size. One value serves
 * {@link RedisCache.Builder#encoding} and {@link Feed.Builder#encoding} alike.
 *
 * <pre>{@code
 * Encoding<User> encoding = Encoding.of(Codecs.msgpack(User.class))
 *     .compression(Compression.lz4())
 *     .alsoRead(Codecs.json(User.class));
 * RedisCache<String, User> users = stowage.cache("users", User.class).encoding(encoding).build();
 * }</pre>
 *
 * <p><b>The compression policy</b> is one of three, and the last one set wins:
 *
 * <ul>
 *   <li>{@link #learnDictionary(int, int)}, the default: {@link Compression#standard()} until
 *       enough values have been written, then zstd with a dictionary trained on them and shared
 *       through Redis;
 *   <li>{@link #compression(Compression)}: always this compression; a dictionary in it is saved in
 *       Redis when the cache or feed is built, so that other processes read the values;
 *   <li>{@link #trainDictionary(Collection, int)}: zstd with a dictionary trained on the given
 *       values when the cache or feed is built, and saved in Redis.
 * </ul>
 *
 * <p>Immutable and thread-safe: every method returns a new value, and checks its arguments at once.
 *
 * @param <V> the type of the values
 */
public final class Encoding<V> {
  /**
   * Values sampled before a dictionary is learned, unless {@link #learnDictionary} says otherwise.
   */
  public static final int DEFAULT_LEARNING_SAMPLES = 1000;

  /**
   * The learned dictionary's largest size, unless {@link #learnDictionary} says otherwise: 64 KiB.
   */
  public static final int DEFAULT_LEARNED_DICTIONARY_SIZE = 64 * 1024;

  /** The fewest values a dictionary is learned or trained from. */
  public static final int MIN_LEARNING_SAMPLES = ZstdDictionary.MIN_SAMPLES;

  /** The smallest size a learned or trained dictionary may be given, in bytes. */
  public static final int MIN_DICTIONARY_SIZE = ZstdDictionary.MIN_TRAINED_SIZE;

  /** The most values a dictionary is learned from. */
  public static final int MAX_LEARNING_SAMPLES = 100_000;

  /**
   * The default limit on a value's decoded size, compressed or not, unless {@link #maxDecodedSize}
   * says otherwise: 8 MiB. A cache value travels whole on every hit as one Redis string, so one of
   * more than a few hundred kilobytes already costs milliseconds per read; 8 MiB leaves room for
   * those, and eight reads at the limit fit the default {@linkplain
   * Stowage.Builder#decompressionBudget decompression budget} at once.
   */
  public static final int DEFAULT_MAX_DECODED_SIZE = 8 * 1024 * 1024;

  private final Codec<V> codec;
  private final @Nullable Compression compression;
  private final @Nullable List<V> trainingSamples;
  private final int samples;
  private final int dictionarySize;
  private final List<Codec<V>> alsoRead;
  private final @Nullable Codec<V> legacy;
  private final boolean writesLegacy;
  private final int maxDecodedSize;

  private Encoding(
      Codec<V> codec,
      @Nullable Compression compression,
      @Nullable List<V> trainingSamples,
      int samples,
      int dictionarySize,
      List<Codec<V>> alsoRead,
      @Nullable Codec<V> legacy,
      boolean writesLegacy,
      int maxDecodedSize) {
    this.codec = codec;
    this.compression = compression;
    this.trainingSamples = trainingSamples;
    this.samples = samples;
    this.dictionarySize = dictionarySize;
    this.alsoRead = alsoRead;
    this.legacy = legacy;
    this.writesLegacy = writesLegacy;
    this.maxDecodedSize = maxDecodedSize;
  }

  /** Values written with {@code codec}, with the default compression policy and limits. */
  public static <V> Encoding<V> of(Codec<V> codec) {
    return new Encoding<>(
        requireNonNull(codec, "codec"),
        null,
        null,
        DEFAULT_LEARNING_SAMPLES,
        DEFAULT_LEARNED_DICTIONARY_SIZE,
        List.of(),
        null,
        false,
        DEFAULT_MAX_DECODED_SIZE);
  }

  /**
   * Values written with {@link Codecs#defaultFor(Class)}: what a cache or feed uses when no
   * encoding is given.
   *
   * @throws MissingLibraryException if the default codec's library is absent
   */
  public static <V> Encoding<V> defaultFor(Class<V> type) {
    return of(Codecs.defaultFor(type));
  }

  /** {@link #defaultFor(Class)} for a type with type arguments, such as {@code List<Item>}. */
  public static <V> Encoding<V> defaultFor(TypeRef<V> type) {
    return of(Codecs.defaultFor(type));
  }

  /** The codec new values are written with. */
  public Codec<V> codec() {
    return codec;
  }

  /**
   * Always compresses new values with {@code compression}, instead of learning a dictionary. A
   * dictionary in it ({@link Compression#zstd(byte[])}) is saved in Redis when the cache or feed is
   * built.
   */
  public Encoding<V> compression(Compression compression) {
    return new Encoding<>(
        codec,
        requireNonNull(compression, "compression"),
        null,
        samples,
        dictionarySize,
        alsoRead,
        legacy,
        writesLegacy,
        maxDecodedSize);
  }

  /**
   * The default policy, tuned: new values are written with {@link Compression#standard()} (zstd
   * from a kilobyte, none below) until {@code samples} values have been written; then a zstd
   * dictionary of at most {@code dictionarySize} bytes is trained on them, saved in Redis, recorded
   * for every process writing the same cache or feed ({@link Inspector.Keys#learnedByCache}, {@link
   * Inspector.Keys#learnedByFeed}) and used for every later value. The first process to record a
   * dictionary wins; the others, and every process that starts later, adopt it. A bulk write that
   * completes the samples trains before it encodes the rest of its values. Values written before
   * stay readable.
   *
   * @throws IllegalArgumentException if {@code samples} is outside {@link #MIN_LEARNING_SAMPLES} to
   *     {@link #MAX_LEARNING_SAMPLES}, or {@code dictionarySize} below {@link #MIN_DICTIONARY_SIZE}
   */
  public Encoding<V> learnDictionary(int samples, int dictionarySize) {
    if (samples < ZstdDictionary.MIN_SAMPLES || samples > MAX_LEARNING_SAMPLES) {
      throw new IllegalArgumentException(
          "samples must be "
              + ZstdDictionary.MIN_SAMPLES
              + " to "
              + MAX_LEARNING_SAMPLES
              + ", got "
              + samples);
    }
    return new Encoding<>(
        codec,
        null,
        null,
        samples,
        ZstdDictionary.checkTrainedSize(dictionarySize),
        alsoRead,
        legacy,
        writesLegacy,
        maxDecodedSize);
  }

  /**
   * Trains a zstd dictionary of at most {@code dictionarySize} bytes on these values (a few
   * thousand work well) when the cache or feed is built, saves it in Redis, and compresses new
   * values with it.
   *
   * @throws IllegalArgumentException if {@code dictionarySize} is below {@link
   *     #MIN_DICTIONARY_SIZE}
   */
  public Encoding<V> trainDictionary(Collection<? extends V> samples, int dictionarySize) {
    List<V> copy = new ArrayList<>(requireNonNull(samples, "samples").size());
    for (V sample : samples) {
      copy.add(requireNonNull(sample, "samples contain null"));
    }
    return new Encoding<>(
        codec,
        null,
        List.copyOf(copy),
        this.samples,
        ZstdDictionary.checkTrainedSize(dictionarySize),
        alsoRead,
        legacy,
        writesLegacy,
        maxDecodedSize);
  }

  /**
   * Adds codecs whose values should also be read, though new values are written with {@link
   * #codec()}: each stored value names the codec that wrote it, and is read by the codec among
   * these (or {@link #codec()}) with that id.
   */
  @SafeVarargs
  public final Encoding<V> alsoRead(Codec<V>... readers) {
    List<Codec<V>> all = new ArrayList<>(alsoRead);
    for (Codec<V> reader : requireNonNull(readers, "readers")) {
      all.add(requireNonNull(reader, "readers contain null"));
    }
    return new Encoding<>(
        codec,
        compression,
        trainingSamples,
        samples,
        dictionarySize,
        List.copyOf(all),
        legacy,
        writesLegacy,
        maxDecodedSize);
  }

  /**
   * The codec for values with no envelope, written before Stowage (JSON written by Spring's {@code
   * GenericJackson2JsonRedisSerializer}, plain strings, JDK serialization); without one, such
   * values fail to decode. New values are written with {@link #codec()}, in an envelope, which an
   * application that predates Stowage cannot read; until every reader runs Stowage, use {@link
   * #writeLegacy} instead.
   */
  public Encoding<V> legacy(Codec<V> legacyCodec) {
    return new Encoding<>(
        codec,
        compression,
        trainingSamples,
        samples,
        dictionarySize,
        alsoRead,
        requireNonNull(legacyCodec, "legacyCodec"),
        false,
        maxDecodedSize);
  }

  /**
   * As {@link #legacy}, and new values are written with {@code legacyCodec} too, as it encodes
   * them: no envelope, no compression, no dictionary. An application that does not run Stowage yet
   * (the old version, during a rolling deploy) reads them as it always has, while envelopes written
   * by processes already switched to {@link #legacy} are read here. The first step of a migration,
   * to replace by {@link #legacy} once every reader runs Stowage ({@code docs/MIGRATION.md}); the
   * compression policy set here is used again then.
   *
   * <p><b>Warning:</b> the marker a cache that {@linkplain RedisCache.Builder#cacheAbsent caches
   * absent keys} stores is still an envelope, which old readers cannot read.
   */
  public Encoding<V> writeLegacy(Codec<V> legacyCodec) {
    return new Encoding<>(
        codec,
        compression,
        trainingSamples,
        samples,
        dictionarySize,
        alsoRead,
        requireNonNull(legacyCodec, "legacyCodec"),
        true,
        maxDecodedSize);
  }

  /**
   * The largest value, once decompressed, that is read or written, in bytes; {@link
   * #DEFAULT_MAX_DECODED_SIZE} by default. A compressed value that declares more is a decode
   * failure before anything is allocated for it, as is a value stored without compression that is
   * larger; writing a value that encodes to more throws an {@link EnvelopeException}. Compressed
   * values are also decompressed within the Stowage's {@linkplain
   * Stowage.Builder#decompressionBudget decompression budget}.
   *
   * <p>It also bounds what reading a value may build, since a payload within it can build thirty
   * times its size in objects: the MessagePack and JSON codecs read values of at most {@code
   * maxDecodedSize / 8} elements (every value and map key: 1,048,576 at the default; never fewer
   * than 4,096) and {@code maxDecodedSize} bytes of strings, and a value with more is a decode
   * failure, refused before its objects are built. The heap a large value builds is taken from the
   * decompression budget while it is decoded. Raise the limit for values of more elements.
   *
   * @throws IllegalArgumentException if {@code maxDecodedSize} is below 1
   */
  public Encoding<V> maxDecodedSize(int maxDecodedSize) {
    if (maxDecodedSize < 1) {
      throw new IllegalArgumentException(
          "maxDecodedSize must be at least 1 byte, got " + maxDecodedSize);
    }
    return new Encoding<>(
        codec,
        compression,
        trainingSamples,
        samples,
        dictionarySize,
        alsoRead,
        legacy,
        writesLegacy,
        maxDecodedSize);
  }

  @Override
  public String toString() {
    String policy;
    if (compression != null) {
      policy = compression.toString();
    } else if (trainingSamples != null) {
      policy =
          "zstd with a dictionary of at most "
              + dictionarySize
              + " bytes trained on "
              + trainingSamples.size()
              + " values";
    } else {
      policy =
          "learning a dictionary of at most "
              + dictionarySize
              + " bytes from "
              + samples
              + " values";
    }
    return "Encoding["
        + codec.name()
        + ", "
        + policy
        + (alsoRead.isEmpty() ? "" : ", also reading " + alsoRead.size() + " codecs")
        + (legacy == null ? "" : (writesLegacy ? ", writing legacy " : ", legacy ") + legacy.name())
        + ", at most "
        + maxDecodedSize
        + " bytes decoded]";
  }

  /**
   * The codec with no envelope that new values are written with when {@link #writeLegacy} set one;
   * empty otherwise, including after {@link #legacy}, whose codec only reads.
   */
  Optional<Codec<V>> legacyWrites() {
    return writesLegacy ? Optional.of(requireNonNull(legacy, "legacy")) : Optional.empty();
  }

  /**
   * The serializer of this encoding for values that no cache or feed writes, such as those of a
   * Spring {@code RedisTemplate}: it writes as a cache of this encoding does (with {@link #codec()}
   * and the compression policy, or with the legacy codec after {@link #writeLegacy}), and reads
   * every value such a cache reads (the {@linkplain #alsoRead codecs also read}, the {@linkplain
   * #legacy legacy codec}, values of other shapes), up to {@link #maxDecodedSize}. It reads the
   * zstd dictionaries and writer schemas that values name from {@code stowage}'s Redis,
   * decompresses within its {@linkplain Stowage.Builder#decompressionBudget budget}, and saves the
   * dictionary and schema it writes with there, now and after every reconnection, so that other
   * processes read its values.
   *
   * <p>The compression policy: {@link #compression} as given; {@link #trainDictionary} trains its
   * dictionary now, once per call. The learning policy, the default, learns from the values a cache
   * or feed writes, and there is none here: the serializer writes with {@link
   * Compression#standard()}.
   */
  public Serializer<V> serializer(Stowage stowage) {
    return new Serializer<>(envelopeCodec(stowage), legacyWritesCodec());
  }

  /**
   * {@link #serializer(Stowage)} without Redis, for tests, benchmarks and values kept elsewhere:
   * the serializer reads no dictionary but the one its own compression holds (any other is a {@link
   * DictionaryNotFoundException}), no writer schema but those of its own codecs, and decompresses
   * within a budget shared by every serializer made without Redis; a dictionary trained here is
   * kept nowhere else.
   */
  public Serializer<V> serializer() {
    return new Serializer<>(envelopeCodec(), legacyWritesCodec());
  }

  private @Nullable Codec<V> legacyWritesCodec() {
    return writesLegacy ? legacy : null;
  }

  /**
   * The envelope codec that reads what a cache of this encoding reads, through {@code owner}'s
   * dictionaries, schemas and budget; it saves nothing.
   */
  EnvelopeCodec<V> readerFor(Stowage owner) {
    return envelopeCodec(owner, compression != null ? compression : Compression.none());
  }

  /**
   * The envelope codec of this encoding for values that no cache or feed writes, such as those of a
   * Spring {@code RedisTemplate}: it writes with {@link #codec()} and the compression policy, and
   * reads every value a cache of this encoding reads (the {@linkplain #alsoRead codecs also read},
   * the {@linkplain #legacy legacy codec}, values of other shapes), up to {@link #maxDecodedSize}.
   * It reads the zstd dictionaries and writer schemas that values name from {@code stowage}'s
   * Redis, decompresses within its {@linkplain Stowage.Builder#decompressionBudget budget}, and
   * saves the dictionary and schema it writes with there, now and after every reconnection, so that
   * other processes read its values.
   *
   * <p>The compression policy: {@link #compression} as given; {@link #trainDictionary} trains its
   * dictionary now, once per call. The learning policy, the default, learns from the values a cache
   * or feed writes, and there is none here: the codec writes with {@link Compression#standard()}.
   * With {@link #writeLegacy} the codec writes uncompressed envelopes, and is meant for reading:
   * new values are written by {@link #legacyWrites()}.
   */
  EnvelopeCodec<V> envelopeCodec(Stowage stowage) {
    requireNonNull(stowage, "stowage");
    Compression fixed = standaloneCompression();
    CompressionAccess.dictionary(fixed).ifPresent(stowage::useDictionary);
    EnvelopeCodec<V> envelopeCodec = envelopeCodec(stowage, fixed);
    envelopeCodec.writeSchema().ifPresent(stowage::useSchema);
    return envelopeCodec;
  }

  /**
   * {@link #envelopeCodec(Stowage)} without Redis: the codec reads no dictionary but the one its
   * own compression holds (any other is a {@link DictionaryNotFoundException}), no writer schema
   * but those of its own codecs, and decompresses within the JVM-wide budget; a dictionary trained
   * here is kept nowhere else.
   */
  EnvelopeCodec<V> envelopeCodec() {
    return envelopeBuilder(standaloneCompression()).build();
  }

  /** The compression of a codec outside caches and feeds, which has nothing to learn from. */
  private Compression standaloneCompression() {
    if (writesLegacy) {
      return Compression.none();
    }
    if (trainingSamples != null) {
      return trainedCompression(trainingSamples);
    }
    return compression != null ? compression : Compression.standard();
  }

  private Compression trainedCompression(List<V> trainingSamples) {
    List<byte[]> encoded = new ArrayList<>(trainingSamples.size());
    for (V sample : trainingSamples) {
      encoded.add(codec.encode(sample));
    }
    return CompressionAccess.zstd(ZstdDictionary.train(encoded, dictionarySize));
  }

  /**
   * The codec a cache or feed of {@code owner} writes with: the dictionary given, trained or
   * learned and the schema are kept in Redis through {@code owner} (saved, and again after
   * reconnections until Redis takes them; meanwhile the codec writes without the dictionary and
   * waits for the schema); with the learning policy, the dictionary learned is recorded in the hash
   * {@code recordKey}, trained on {@code executor} after a single write. {@code ownerName} names
   * the cache or feed in messages.
   */
  WriteCodec<V> writeCodec(Stowage owner, String recordKey, Executor executor, String ownerName) {
    if (writesLegacy) {
      return WriteCodec.legacyWrites(
          envelopeCodec(owner, Compression.none()), requireNonNull(legacy, "legacy"));
    }
    @Nullable Compression fixed = compression;
    if (trainingSamples != null) {
      fixed = trainedCompression(trainingSamples);
    }
    if (fixed != null) {
      EnvelopeCodec<V> fallback =
          fixed.dictionaryId().isPresent()
              ? envelopeCodec(owner, Compression.standard())
              : envelopeCodec(owner, fixed);
      return WriteCodec.kept(envelopeCodec(owner, fixed), fallback, owner.keptKeys(), ownerName);
    }
    return WriteCodec.learning(
        new WriteCodec.LearningSettings<>(
            policy -> envelopeCodec(owner, policy),
            codec,
            owner.session(),
            owner.dictionaries(),
            owner.keptKeys(),
            recordKey,
            samples,
            dictionarySize,
            executor,
            ownerName));
  }

  private EnvelopeCodec<V> envelopeCodec(Stowage owner, Compression writeCompression) {
    return envelopeBuilder(writeCompression)
        .dictionaries(owner.dictionaries())
        .schemas(owner.schemas())
        .decompressionBudget(owner.decompressionBudget())
        .build();
  }

  private EnvelopeCodecBuilder<V> envelopeBuilder(Compression writeCompression) {
    EnvelopeCodecBuilder<V> builder =
        EnvelopeCodec.builder(codec).compression(writeCompression).maxDecodedSize(maxDecodedSize);
    for (Codec<V> reader : alsoRead) {
      builder.alsoRead(reader);
    }
    if (legacy != null) {
      builder.legacy(legacy);
    }
    return builder;
  }

  /**
   * Writes and reads values as the caches of one {@link Encoding} do, outside any cache: from
   * {@link Encoding#serializer(Stowage)} or {@link Encoding#serializer()}. The bytes are those a
   * cache stores, so a cache reads what this writes and the other way round.
   *
   * <p>Decoding never lets a NullPointerException or an index error escape: bytes that cannot be
   * read give an {@link EnvelopeException}, a {@link DictionaryNotFoundException}, a {@link
   * SchemaNotFoundException}, a {@link CodecException} or a {@link MissingLibraryException}, each
   * with the value's header as {@linkplain StowageException#context() context}.
   *
   * <p>Immutable and thread-safe.
   *
   * @param <V> the type of the values
   */
  public static final class Serializer<V> {
    private final EnvelopeCodec<V> codec;
    private final @Nullable Codec<V> legacyWrites;

    Serializer(EnvelopeCodec<V> codec, @Nullable Codec<V> legacyWrites) {
      this.codec = codec;
      this.legacyWrites = legacyWrites;
    }

    /**
     * The bytes a cache of the encoding stores for {@code value}.
     *
     * @throws CodecException if the codec cannot encode the value
     * @throws EnvelopeException if the encoded value is larger than {@link
     *     Encoding#maxDecodedSize}, or a legacy codec wrote bytes no reader could tell from an
     *     envelope
     */
    public byte[] encode(V value) {
      return legacyWrites != null ? codec.encodeLegacy(legacyWrites, value) : codec.encode(value);
    }

    /**
     * Decodes bytes a cache of the encoding (or another that it {@linkplain Encoding#alsoRead also
     * reads}, or the legacy codec) wrote.
     *
     * @throws StowageException when the value cannot be read, as the class comment says
     */
    public V decode(byte[] value) {
      return codec.decode(value);
    }

    /** Whether {@code value} starts as the values this serializer writes in an envelope do. */
    public static boolean isEnvelope(byte[] value) {
      return Envelope.isEnvelope(value);
    }

    /** The compression new values are written with: none when the encoding writes legacy values. */
    public Compression compression() {
      return legacyWrites != null ? Compression.none() : codec.compression();
    }

    /** The codec new values are written with. */
    public Codec<V> codec() {
      return legacyWrites != null ? legacyWrites : codec.writeCodec();
    }

    /**
     * What the schema field of each value written holds: the fingerprint of the codec's schema when
     * it is an {@link Codec.Evolving}; empty otherwise, and for legacy writes.
     */
    public OptionalInt schemaVersion() {
      return legacyWrites != null ? OptionalInt.empty() : codec.schemaVersion();
    }

    /** The largest value, once decompressed, that is read or written, in bytes. */
    public int maxDecodedSize() {
      return codec.maxDecodedSize();
    }

    @Override
    public String toString() {
      return (legacyWrites == null ? "" : "writing legacy " + legacyWrites.name() + ", ") + codec;
    }
  }
}
