package dev.stowage.internal.envelope;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.EnvelopeException;
import dev.stowage.MissingLibraryException;
import dev.stowage.SchemaNotFoundException;
import dev.stowage.Stowage;
import dev.stowage.compress.Compression;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.compress.PayloadCompressor;
import dev.stowage.internal.compress.PayloadCompressors;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.format.Schemas;
import dev.stowage.internal.store.SchemaResolver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Configures an {@link EnvelopeCodec}. Not thread-safe; {@link #build()} validates every setting
 * and may be called more than once.
 *
 * @param <T> the type of the values
 */
public final class EnvelopeCodecBuilder<T> {
  final Codec<T> writeCodec;
  private final List<Codec<T>> alsoRead = new ArrayList<>();
  Compression compression = Compression.none();
  private @Nullable DictionaryResolver dictionaries;
  @Nullable Codec<T> legacy;
  private @Nullable SchemaResolver schemas;
  int schemaVersion = -1;
  int maxDecodedSize = EnvelopeCodec.DEFAULT_MAX_DECODED_SIZE;
  DecompressionBudget budget = DecompressionBudget.shared();

  EnvelopeCodecBuilder(Codec<T> writeCodec) {
    this.writeCodec = writeCodec;
  }

  /**
   * Adds codecs whose values this codec should also decode, chosen by the id in each value's
   * header. The write codec is always read.
   */
  @SafeVarargs
  public final EnvelopeCodecBuilder<T> alsoRead(Codec<T>... readers) {
    requireNonNull(readers, "readers");
    for (Codec<T> reader : readers) {
      alsoRead.add(requireNonNull(reader, "readers contains null"));
    }
    return this;
  }

  /** How new values are compressed; {@link Compression#none()} by default. */
  public EnvelopeCodecBuilder<T> compression(Compression compression) {
    this.compression = requireNonNull(compression, "compression");
    return this;
  }

  /**
   * Where the zstd dictionaries named by values are found, such as a {@link
   * dev.stowage.internal.store.DictionaryStore}. The dictionary of the write compression is always
   * found, without asking the resolver.
   */
  public EnvelopeCodecBuilder<T> dictionaries(DictionaryResolver resolver) {
    this.dictionaries = requireNonNull(resolver, "dictionaries");
    return this;
  }

  /**
   * The codec for values with no envelope (no magic byte): JSON written by Spring's {@code
   * GenericJackson2JsonRedisSerializer}, plain strings, JDK serialization. Without one, such values
   * fail to decode.
   */
  public EnvelopeCodecBuilder<T> legacy(Codec<T> legacyCodec) {
    this.legacy = requireNonNull(legacyCodec, "legacy");
    return this;
  }

  /**
   * Where the writer schemas named by values are found, such as the store of a {@link Stowage}: an
   * {@link Codec.Evolving} needs the writer's schema to read a value written with another one. The
   * schemas of this instance's own codecs are always found.
   */
  public EnvelopeCodecBuilder<T> schemas(SchemaResolver resolver) {
    this.schemas = requireNonNull(resolver, "schemas");
    return this;
  }

  /**
   * A schema version, 0 or more, written into every value's header, for a write codec that is not
   * an {@link Codec.Evolving} (those write their schema's fingerprint). Decoding then reads only
   * values of this version with such codecs, and any other is an {@link EnvelopeException}: bump it
   * when the type changes shape, and older values become misses instead of wrong values. None by
   * default.
   */
  public EnvelopeCodecBuilder<T> schemaVersion(int schemaVersion) {
    this.schemaVersion = schemaVersion;
    return this;
  }

  /**
   * The largest decoded payload that decoding accepts, and encoding produces; by default {@link
   * EnvelopeCodec#DEFAULT_MAX_DECODED_SIZE}. Compressed payloads are checked before the output is
   * allocated. It also bounds what a decode builds: the MessagePack and JSON codecs read values of
   * at most {@code maxDecodedSize / 8} elements and {@code maxDecodedSize} string bytes.
   */
  public EnvelopeCodecBuilder<T> maxDecodedSize(int maxDecodedSize) {
    this.maxDecodedSize = maxDecodedSize;
    return this;
  }

  /**
   * The budget that this codec's compressed payloads are decompressed within, shared with the
   * codecs given the same; {@link DecompressionBudget#shared()} by default.
   */
  public EnvelopeCodecBuilder<T> decompressionBudget(DecompressionBudget budget) {
    this.budget = requireNonNull(budget, "budget");
    return this;
  }

  /**
   * Validates the settings and builds the codec.
   *
   * @throws IllegalArgumentException naming the setting at fault: a codec id outside 1 to 255, two
   *     different codecs with one id, a negative schema version, a schema version with an {@link
   *     Codec.Evolving} (which writes its own fingerprint), a maxDecodedSize below 1
   * @throws MissingLibraryException if the compression's library is absent
   */
  // ReferenceEquality: the same codec instance, given twice.
  @SuppressWarnings({"unchecked", "ReferenceEquality"})
  public EnvelopeCodec<T> build() {
    if (schemaVersion < 0 && schemaVersion != -1) {
      throw new IllegalArgumentException("schemaVersion must be 0 or more, got " + schemaVersion);
    }
    if (maxDecodedSize < 1) {
      throw new IllegalArgumentException(
          "maxDecodedSize must be at least 1 byte, got " + maxDecodedSize);
    }
    Codec<T>[] readers = new Codec[256];
    List<Codec<T>> all = new ArrayList<>();
    all.add(writeCodec);
    all.addAll(alsoRead);
    for (Codec<T> codec : all) {
      int id = codec.id();
      String setting = codec == writeCodec ? "writeCodec" : "alsoRead";
      if (id < 1 || id > 255) {
        throw new IllegalArgumentException(
            setting
                + ": codec "
                + codec.getClass().getName()
                + " has id "
                + id
                + "; codec ids are 1 to 255");
      }
      if (readers[id] != null && readers[id] != codec) {
        throw new IllegalArgumentException(
            setting
                + ": codec id "
                + id
                + " is taken twice, by "
                + readers[id].name()
                + " ("
                + readers[id].getClass().getName()
                + ") and "
                + codec.name()
                + " ("
                + codec.getClass().getName()
                + ")");
      }
      readers[id] = codec;
    }
    if (schemaVersion >= 0 && writeCodec instanceof Codec.Evolving) {
      throw new IllegalArgumentException(
          "schemaVersion: codec "
              + writeCodec.name()
              + " writes the fingerprint of"
              + " its schema in the schema field and reads other schemas by itself; a schema version is for other codecs");
    }
    int[] fingerprints = new int[256];
    Arrays.fill(fingerprints, -1);
    List<String> ownSchemas = new ArrayList<>();
    for (int id = 1; id < readers.length; id++) {
      if (readers[id] instanceof Codec.Evolving<T> evolving) {
        String schema =
            requireNonNull(
                evolving.schema(), () -> "codec " + evolving.name() + " has a null schema");
        fingerprints[id] = Schemas.fingerprint(schema);
        ownSchemas.add(schema);
      }
    }
    SchemaResolver schemaResolver = schemas;
    if (!ownSchemas.isEmpty()) {
      SchemaResolver own = SchemaResolver.of(ownSchemas.toArray(String[]::new));
      SchemaResolver fallback = schemas;
      schemaResolver =
          fallback == null
              ? own
              : fingerprint -> {
                try {
                  return own.resolve(fingerprint);
                } catch (SchemaNotFoundException e) {
                  return fallback.resolve(fingerprint);
                }
              };
    }
    PayloadCompressor compressor = PayloadCompressors.forWriting(compression);
    DictionaryResolver resolver = dictionaries;
    ZstdDictionary own = CompressionAccess.dictionary(compression).orElse(null);
    if (own != null) {
      DictionaryResolver ownResolver = DictionaryResolver.of(own);
      resolver = resolver == null ? ownResolver : ownResolver.orElse(resolver);
    }
    return new EnvelopeCodec<>(
        this,
        Arrays.copyOf(readers, readers.length),
        compressor,
        resolver,
        fingerprints,
        schemaResolver);
  }
}
