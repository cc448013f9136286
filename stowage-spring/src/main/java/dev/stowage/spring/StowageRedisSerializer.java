package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.serializer.RedisSerializationContext;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;
import org.springframework.data.redis.serializer.StringRedisSerializer;

/**
 * A Spring Data Redis value serializer that writes Stowage envelopes, for a {@code RedisTemplate}
 * or, through {@link #context()}, a {@code ReactiveRedisTemplate}: values are written as an {@link
 * Encoding} says (its codec and compression, in an envelope, as a cache of that encoding writes
 * them) and read whatever codec, compression and dictionary wrote them, so a template and Stowage's
 * caches read each other's values.
 *
 * <pre>{@code
 * StowageRedisSerializer<Article> articles = StowageRedisSerializer.of(stowage,
 *     Encoding.of(Codecs.msgpack(Article.class)).legacy(Codecs.springJson(Article.class)));
 * RedisTemplate<String, Article> template = new RedisTemplate<>();
 * template.setConnectionFactory(connectionFactory);
 * template.setKeySerializer(RedisSerializer.string());
 * template.setValueSerializer(articles);
 * template.afterPropertiesSet();
 * }</pre>
 *
 * <p><b>Values Spring wrote before.</b> A value without an envelope is read by the encoding's
 * {@linkplain Encoding#legacy legacy codec}, such as {@code Codecs.springJson} for what {@code
 * GenericJackson2JsonRedisSerializer} wrote or {@code Codecs.jdk} for {@code
 * JdkSerializationRedisSerializer}'s values; those codecs create only the classes on their
 * allowlists. During a rolling deploy, {@link Encoding#writeLegacy} writes new values as that codec
 * encodes them, without an envelope, so that the old version still reads them ({@code
 * docs/MIGRATION.md}).
 *
 * <p><b>Failures.</b> A template has no miss: a value that cannot be read (no envelope and no
 * legacy codec, a corrupt or foreign value, a class off the allowlist, a dictionary Redis does not
 * hold) or written throws Spring's {@link SerializationException}, whose message says why and whose
 * cause is the {@link StowageException}. {@code null} is written as no bytes, and no bytes read as
 * {@code null}, as Spring's own serializers do.
 *
 * <p><b>Keys</b> are not this serializer's business: use {@link RedisSerializer#string()} for them,
 * as {@link #context()} does, so that keys are the text that Stowage's caches and tools use.
 *
 * <p>Thread-safe.
 *
 * @param <T> the type of the values
 */
public final class StowageRedisSerializer<T> implements RedisSerializer<T> {
  private static final System.Logger LOG = System.getLogger("dev.stowage.spring");

  private final Encoding.Serializer<T> codec;
  private final @Nullable Stowage stowage;

  private StowageRedisSerializer(Encoding.Serializer<T> codec, @Nullable Stowage stowage) {
    this.codec = codec;
    this.stowage = stowage;
  }

  /**
   * A serializer of {@code encoding} over {@code stowage}'s Redis: it reads the zstd dictionaries
   * and writer schemas that values name there, including the dictionaries Stowage's caches learned,
   * and saves there the dictionary and schema it writes with ({@link
   * Encoding#serializer(Stowage)}). The default compression policy, learning a dictionary, needs a
   * cache to learn from, so this serializer writes with {@code Compression.standard()} under it;
   * give {@link Encoding#compression} or {@link Encoding#trainDictionary} for a dictionary.
   *
   * @throws dev.stowage.MissingLibraryException if the compression's library is absent
   * @throws StowageException if the dictionary to write with cannot be saved in Redis now
   */
  public static <T> StowageRedisSerializer<T> of(Stowage stowage, Encoding<T> encoding) {
    requireNonNull(stowage, "stowage");
    requireNonNull(encoding, "encoding");
    return new StowageRedisSerializer<>(encoding.serializer(stowage), stowage);
  }

  /**
   * A serializer of {@code encoding} without a Stowage: it reads no zstd dictionary but the one its
   * own compression holds, so a value compressed with any other fails to read ({@link
   * Encoding#serializer()}). For encodings without dictionaries; otherwise use {@link #of(Stowage,
   * Encoding)}.
   */
  public static <T> StowageRedisSerializer<T> of(Encoding<T> encoding) {
    requireNonNull(encoding, "encoding");
    return new StowageRedisSerializer<>(encoding.serializer(), null);
  }

  /**
   * A serialization context for a {@code ReactiveRedisTemplate<String, T>}: {@link #context()} of
   * {@link #of(Stowage, Encoding)}.
   */
  public static <T> RedisSerializationContext<String, T> context(
      Stowage stowage, Encoding<T> encoding) {
    return of(stowage, encoding).context();
  }

  /**
   * A serialization context for a {@code ReactiveRedisTemplate<String, T>} whose values, and hash
   * values, are written and read by this serializer, and whose keys, hash keys and strings are
   * UTF-8 text ({@link StringRedisSerializer#UTF_8}).
   *
   * <p><b>Lettuce's I/O threads.</b> A reactive template decodes values on the thread that delivers
   * Redis's reply, a Lettuce I/O thread unless the connection factory's {@code ClientOptions} set
   * {@code publishOnScheduler(true)}. A value naming a zstd dictionary or a writer schema that this
   * process has not read yet makes the serializer ask Stowage's Redis and wait for the answer: on
   * an I/O thread, that stalls the thread's other connections, and when Stowage shares the
   * application's {@code ClientResources} (as the auto-configuration does) the answer may be due on
   * that very thread, so the read fails after the command timeout. This method therefore reads
   * every dictionary Redis holds now into the serializer's Stowage (when it has one; a failure is
   * logged, not thrown); for dictionaries and schemas that appear later, set {@code
   * publishOnScheduler(true)}.
   */
  public RedisSerializationContext<String, T> context() {
    loadDictionaries();
    return RedisSerializationContext.<String, T>newSerializationContext(StringRedisSerializer.UTF_8)
        .value(this)
        .hashValue(this)
        .build();
  }

  /** The encoding's serializer, which this one writes and reads with. */
  public Encoding.Serializer<T> serializer() {
    return codec;
  }

  /**
   * The value in an envelope, or, when the encoding {@linkplain Encoding#writeLegacy writes legacy
   * values}, as the legacy codec encodes it; no bytes for {@code null}.
   *
   * @throws SerializationException if the codec cannot encode the value, or it is larger than the
   *     encoding's {@linkplain Encoding#maxDecodedSize largest decoded size}
   */
  @Override
  public byte[] serialize(@Nullable T value) {
    if (value == null) {
      return new byte[0];
    }
    try {
      return codec.encode(value);
    } catch (StowageException e) {
      throw new SerializationException(
          "Stowage could not serialize a " + value.getClass().getName() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The value these bytes hold, read by the envelope's codec or, without an envelope, the legacy
   * codec; {@code null} for no bytes.
   *
   * @throws SerializationException if the bytes cannot be read: see the class comment
   */
  @Override
  public @Nullable T deserialize(byte @Nullable [] bytes) {
    if (bytes == null || bytes.length == 0) {
      return null;
    }
    try {
      return codec.decode(bytes);
    } catch (StowageException e) {
      throw new SerializationException(
          "Stowage could not deserialize "
              + bytes.length
              + " bytes ("
              + (Encoding.Serializer.isEnvelope(bytes) ? "an envelope" : "no envelope")
              + ") with "
              + codec
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Reads the dictionaries Redis holds into the Stowage's store, so that decoding finds them
   * without a wait.
   */
  private void loadDictionaries() {
    if (stowage == null) {
      return;
    }
    Inspector inspector = stowage.inspector();
    try {
      for (long id : inspector.dictionaryIds()) {
        String failure;
        try {
          failure = inspector.dictionary(id).isPresent() ? null : "it is gone";
        } catch (StowageException e) {
          failure = e.getMessage();
        }
        if (failure != null) {
          LOG.log(
              Level.WARNING,
              "could not read zstd dictionary "
                  + Inspector.hexId(id)
                  + " from Redis at "
                  + stowage.address()
                  + " in advance: "
                  + failure);
        }
      }
    } catch (StowageException e) {
      LOG.log(
          Level.WARNING,
          "could not list the zstd dictionaries in Redis at "
              + stowage.address()
              + " to read them in advance; values naming them are read when they arrive: "
              + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "StowageRedisSerializer[" + codec + "]";
  }
}
