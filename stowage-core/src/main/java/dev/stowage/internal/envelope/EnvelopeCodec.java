package dev.stowage.internal.envelope;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.Encoding;
import dev.stowage.EnvelopeException;
import dev.stowage.MissingLibraryException;
import dev.stowage.SchemaNotFoundException;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.internal.codec.DecodeLimits;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.compress.PayloadCompressor;
import dev.stowage.internal.compress.PayloadDecompressor;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.EnvelopeWriter;
import dev.stowage.internal.store.SchemaResolver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Writes values inside an {@link Envelope} and reads them back, whatever codec and compression
 * wrote them. Encoding uses the write codec and the {@link Compression}; decoding picks the codec
 * from the value's header among the codecs this instance reads, so a cache can switch codec or
 * compression without flushing Redis.
 *
 * <pre>{@code
 * EnvelopeCodec<Board> boards = EnvelopeCodec.builder(msgpack)
 *     .alsoRead(json)                       // values written before the switch
 *     .compression(Compression.zstd(dictionary))
 *     .dictionaries(dictionaryStore)
 *     .legacy(json)                         // values an older app wrote without an envelope
 *     .build();
 * }</pre>
 *
 * <p>Decoding never lets a NullPointerException or an index error escape: bytes that cannot be read
 * give an {@link EnvelopeException} (no magic byte and no legacy codec, a malformed header, an
 * unknown codec id, a corrupt payload, a payload past {@link #maxDecodedSize()}), a {@link
 * DictionaryNotFoundException}, a {@link CodecException} from the codec, or a {@link
 * MissingLibraryException} when the value's compression library is absent. Each carries the header
 * as {@linkplain StowageException#context() context}. A payload larger than {@link
 * #maxDecodedSize()}, compressed or not, is refused; a compressed payload's declared size is
 * checked before it is allocated and taken from the {@link DecompressionBudget}, and given back
 * once the codec has decoded it.
 *
 * <p>A payload within the limit can still build far more objects than its bytes. The built-in
 * MessagePack and JSON codecs, and codecs that wrap them, hold a value to at most {@code
 * maxDecodedSize / 8} elements (every value and map key; at least 4,096) and {@code maxDecodedSize}
 * string bytes, counted before or while they build it, and a value past them is a {@link
 * CodecException} naming the limit; the heap a large value builds is taken from the budget while it
 * is decoded.
 *
 * <p>Instances are immutable and thread-safe.
 *
 * @param <T> the type of the values
 */
public final class EnvelopeCodec<T> {
  /**
   * The default limit on a value's decoded size: {@link DecodeLimits#DEFAULT_MAX_DECODED_SIZE}.
   * Caches and feeds set a smaller one, {@link dev.stowage.Encoding#DEFAULT_MAX_DECODED_SIZE}.
   */
  public static final int DEFAULT_MAX_DECODED_SIZE = DecodeLimits.DEFAULT_MAX_DECODED_SIZE;

  private final Codec<T> writeCodec;
  private final Codec<T>[] readers;
  private final @Nullable Codec<T> legacy;
  private final Compression compression;
  private final @Nullable PayloadCompressor compressor;
  private final PayloadDecompressor decompressor;
  private final int schemaVersion;
  private final int schemaField;
  private final int[] readerFingerprints;
  private final @Nullable String writeSchema;
  private final @Nullable SchemaResolver schemas;
  private final int maxDecodedSize;
  private final DecompressionBudget budget;
  private final DecodeLimits limits;

  EnvelopeCodec(
      EnvelopeCodecBuilder<T> builder,
      Codec<T>[] readers,
      @Nullable PayloadCompressor compressor,
      @Nullable DictionaryResolver resolver,
      int[] readerFingerprints,
      @Nullable SchemaResolver schemas) {
    this.writeCodec = builder.writeCodec;
    this.readers = readers;
    this.legacy = builder.legacy;
    this.compression = builder.compression;
    this.compressor = compressor;
    this.decompressor = new PayloadDecompressor(resolver);
    this.readerFingerprints = readerFingerprints;
    this.writeSchema = writeCodec instanceof Codec.Evolving<T> evolving ? evolving.schema() : null;
    this.schemaVersion = builder.schemaVersion;
    this.schemaField = writeSchema != null ? readerFingerprints[writeCodec.id()] : schemaVersion;
    this.schemas = schemas;
    this.maxDecodedSize = builder.maxDecodedSize;
    this.budget = builder.budget;
    this.limits = DecodeLimits.of(maxDecodedSize, budget::grow);
  }

  /** Starts a builder whose values are written with {@code writeCodec}, uncompressed by default. */
  public static <T> EnvelopeCodecBuilder<T> builder(Codec<T> writeCodec) {
    return new EnvelopeCodecBuilder<>(requireNonNull(writeCodec, "writeCodec"));
  }

  /**
   * Encodes a value with the write codec, compresses it when it is at least {@link
   * Compression#minSize()} bytes and compression makes it smaller, and puts the header in front:
   * {@link #wrap}{@code (}{@link #encodePayload}{@code (value))}.
   *
   * @throws CodecException if the codec cannot encode the value
   * @throws EnvelopeException if the encoded value is larger than {@link #maxDecodedSize()}, since
   *     no reader with the same limit could read it
   */
  public byte[] encode(T value) {
    return wrap(encodePayload(value));
  }

  /**
   * Encodes a value with the write codec alone: the payload that {@link #encode} compresses and
   * wraps. For a caller that also needs the payload itself, such as the values a dictionary is
   * trained on; {@link #wrap} then finishes the value without encoding it again.
   *
   * @throws CodecException if the codec cannot encode the value
   */
  public byte[] encodePayload(T value) {
    return encodeWith(writeCodec, "codec", value);
  }

  /**
   * Encodes a value as {@code legacy} writes it, with no envelope: for a rolling deploy whose older
   * readers know only that codec ({@link Encoding#writeLegacy}). Refused when this codec, and so
   * any reader with the same limits, could not read it back: when it is larger than {@link
   * #maxDecodedSize()}, or starts with the envelope's magic byte ({@code 0xc1}), which readers
   * would take for an envelope.
   *
   * @throws CodecException if {@code legacy} cannot encode the value
   * @throws EnvelopeException if the encoded value could not be read back, as above
   */
  public byte[] encodeLegacy(Codec<T> legacy, T value) {
    requireNonNull(legacy, "legacy");
    byte[] bytes = encodeWith(legacy, "legacy codec", value);
    if (bytes.length > maxDecodedSize) {
      throw new EnvelopeException(
          "legacy codec "
              + legacy.name()
              + " encoded a value to "
              + bytes.length
              + " bytes, more than maxDecodedSize "
              + maxDecodedSize);
    }
    if (Envelope.isEnvelope(bytes)) {
      throw new EnvelopeException(
          "legacy codec "
              + legacy.name()
              + " wrote a value starting with 0xc1, which readers would take for an envelope");
    }
    return bytes;
  }

  /**
   * {@code codec}'s bytes of a value, its failures and a null result reported as codec failures.
   */
  private static <T> byte[] encodeWith(Codec<T> codec, String role, T value) {
    requireNonNull(value, "value");
    byte[] bytes;
    try {
      bytes = codec.encode(value);
    } catch (StowageException e) {
      throw e.addContext("encoding with " + role + " " + codec.name());
    } catch (RuntimeException e) {
      throw new CodecException(
          role
              + " "
              + codec.name()
              + " failed to encode a "
              + value.getClass().getName()
              + ": "
              + e,
          e);
    }
    if (bytes == null) {
      throw new CodecException(role + " " + codec.name() + " returned null from encode");
    }
    return bytes;
  }

  /**
   * Finishes a payload that {@link #encodePayload} returned: compresses it when it is at least
   * {@link Compression#minSize()} bytes and compression makes it smaller, and puts the header in
   * front.
   *
   * @throws EnvelopeException if the payload is larger than {@link #maxDecodedSize()}, since no
   *     reader with the same limit could read it
   */
  public byte[] wrap(byte[] payload) {
    requireNonNull(payload, "payload");
    if (payload.length > maxDecodedSize) {
      throw new EnvelopeException(
          "codec "
              + writeCodec.name()
              + " encoded a value to "
              + payload.length
              + " bytes, more than maxDecodedSize "
              + maxDecodedSize);
    }
    int codecId = writeCodec.id();
    if (compressor != null && payload.length >= compression.minSize()) {
      int header =
          EnvelopeWriter.headerSize(
              compressor.compressionId(), compressor.dictionaryId(), schemaField);
      int extraHeader = header - EnvelopeWriter.headerSize(CompressionIds.NONE, -1, schemaField);
      byte[] value = compressor.compressAfter(header, payload, payload.length - extraHeader);
      if (value != null) {
        EnvelopeWriter.writeHeader(
            value, codecId, compressor.compressionId(), compressor.dictionaryId(), schemaField);
        return value;
      }
    }
    return EnvelopeWriter.write(codecId, CompressionIds.NONE, -1, schemaField, payload);
  }

  /**
   * Decodes a value written by any codec this instance reads, with any compression, or by the
   * legacy codec when the value has no envelope.
   *
   * @throws EnvelopeException if the value has no magic byte and there is no legacy codec, or its
   *     header is malformed, names a codec this instance does not read, or its payload is corrupt,
   *     is or would decode past {@link #maxDecodedSize()}, or found no room in the {@linkplain
   *     #decompressionBudget() decompression budget} in time
   * @throws CodecException if the codec rejects the payload, or the value would build more elements
   *     or string bytes than {@link #maxDecodedSize()} allows
   * @throws DictionaryNotFoundException if the value's zstd dictionary cannot be resolved
   * @throws MissingLibraryException if the value's compression library is absent
   */
  public T decode(byte[] value) {
    requireNonNull(value, "value");
    if (!Envelope.isEnvelope(value)) {
      if (legacy == null) {
        throw new EnvelopeException(
            "not a Stowage value: "
                + Envelope.describeStart(value)
                + ", and no legacy codec is configured");
      }
      if (value.length > maxDecodedSize) {
        throw new EnvelopeException(
                "a value without an envelope of "
                    + value.length
                    + " bytes, more than"
                    + " maxDecodedSize "
                    + maxDecodedSize
                    + " (Encoding.maxDecodedSize raises it)")
            .addContext("legacy codec " + legacy.name());
      }
      Codec<T> legacyCodec = legacy;
      return withinLimits(
          0,
          value,
          0,
          value.length,
          (data, offset, length) -> decodeWith(legacyCodec, data, offset, length, null));
    }
    Envelope.Header header = Envelope.readHeader(value);
    Codec<T> codec = readers[header.codecId()];
    if (codec == null) {
      throw new EnvelopeException(
          "unknown codec id "
              + header.codecId()
              + " ("
              + header.codecName()
              + "); this reader knows "
              + readableCodecs());
    }
    return decompressed(
        header,
        value,
        (data, offset, length) -> decodeEnveloped(codec, data, offset, length, header));
  }

  /**
   * The payload of an envelope, decompressed, whatever codec wrote it: the bytes that {@link
   * #encodePayload} returned for it. Decompression, the dictionary lookup, the {@linkplain
   * #maxDecodedSize() size limit} and the {@linkplain #decompressionBudget() budget} are those of
   * {@link #decode}, so a tool that shows payloads reads exactly what a cache would.
   *
   * @throws EnvelopeException if the value is no envelope, or its header is malformed, or its
   *     payload is corrupt, would decode past {@link #maxDecodedSize()}, or found no room in the
   *     decompression budget in time
   * @throws DictionaryNotFoundException if the value's zstd dictionary cannot be resolved
   * @throws MissingLibraryException if the value's compression library is absent
   */
  public byte[] decodePayload(byte[] value) {
    requireNonNull(value, "value");
    if (!Envelope.isEnvelope(value)) {
      throw new EnvelopeException("not a Stowage value: " + Envelope.describeStart(value));
    }
    return decompressed(
        Envelope.readHeader(value),
        value,
        (data, offset, length) ->
            offset == 0 && length == data.length
                ? data
                : Arrays.copyOfRange(data, offset, offset + length));
  }

  /** What is done with a payload: {@code length} bytes of {@code data} from {@code offset}. */
  private interface PayloadReader<R> {
    R read(byte[] data, int offset, int length);
  }

  /**
   * Hands {@code then} the envelope's payload, decompressed within the limit and the budget, inside
   * this codec's {@linkplain #withinLimits decode limits}.
   */
  private <R> R decompressed(Envelope.Header header, byte[] value, PayloadReader<R> then) {
    int offset = header.payloadOffset();
    int length = value.length - offset;
    if (header.compressionId() == CompressionIds.NONE) {
      if (length > maxDecodedSize) {
        throw new EnvelopeException(
                "the payload, stored without compression, is "
                    + length
                    + " bytes, more than maxDecodedSize "
                    + maxDecodedSize
                    + " (Encoding.maxDecodedSize raises it)")
            .addContext(header.describe());
      }
      return withinLimits(0, value, offset, length, then);
    }
    int declared;
    try {
      declared =
          decompressor.declaredSize(header.compressionId(), value, offset, length, maxDecodedSize);
      budget.acquire(declared);
    } catch (StowageException e) {
      throw e.addContext(header.describe());
    }
    byte[] payload;
    try {
      payload =
          decompressor.decompress(
              header.compressionId(),
              header.dictionaryId(),
              value,
              offset,
              length,
              maxDecodedSize,
              declared);
    } catch (StowageException e) {
      budget.release(declared);
      throw e.addContext(header.describe());
    } catch (RuntimeException | Error e) {
      budget.release(declared);
      throw e;
    }
    return withinLimits(declared, payload, 0, payload.length, then);
  }

  /**
   * Runs {@code then} on the payload as the decode of this thread's {@linkplain DecodeLimits.Scope
   * scope}: codecs hold what they build to this codec's {@link DecodeLimits} and charge it to the
   * budget, which already holds {@code held} bytes for this decode (its decompressed payload).
   * Gives back all the decode held, and restores the scope it replaced (a codec may decode with
   * another envelope codec inside its own decode).
   */
  private <R> R withinLimits(
      long held, byte[] data, int offset, int length, PayloadReader<R> then) {
    DecodeLimits.Scope scope = DecodeLimits.scope();
    DecodeLimits outer = scope.entered();
    long outerHeld = scope.held();
    scope.enter(limits, held);
    try {
      return then.read(data, offset, length);
    } finally {
      long taken = scope.held();
      scope.enter(outer, outerHeld);
      if (taken > 0) {
        budget.release(taken);
      }
    }
  }

  /**
   * Decodes a payload after checking the value's schema field: an {@link Codec.Evolving} reads a
   * value of another schema through the writer's schema; any other codec, when this instance was
   * given a {@linkplain Builder#schemaVersion schema version}, reads only values of that version.
   */
  private T decodeEnveloped(
      Codec<T> codec, byte[] data, int offset, int length, Envelope.Header header) {
    int ownFingerprint = readerFingerprints[header.codecId()];
    if (ownFingerprint >= 0) {
      if (header.hasSchemaVersion() && header.schemaVersion() != ownFingerprint) {
        String writerSchema = writerSchema(header);
        Codec.Evolving<T> evolving = (Codec.Evolving<T>) codec;
        return checked(
            codec, header, () -> evolving.decode(data, offset, length, writerSchema), length);
      }
    } else if (schemaVersion >= 0 && header.schemaVersion() != schemaVersion) {
      throw new EnvelopeException(
              (header.hasSchemaVersion()
                      ? "the value has schema version " + header.schemaVersion()
                      : "the value has no schema version")
                  + "; this reader reads version "
                  + schemaVersion
                  + " only")
          .addContext(header.describe());
    }
    return decodeWith(codec, data, offset, length, header);
  }

  private String writerSchema(Envelope.Header header) {
    int fingerprint = header.schemaVersion();
    try {
      if (schemas == null) {
        throw new SchemaNotFoundException(fingerprint)
            .addContext("no schema resolver is configured");
      }
      return schemas.resolve(fingerprint);
    } catch (StowageException e) {
      throw e.addContext(header.describe());
    }
  }

  /**
   * The header of a value.
   *
   * @throws EnvelopeException if the value has no envelope or its header is malformed
   */
  public Envelope.Header header(byte[] value) {
    return Envelope.readHeader(value);
  }

  /** The codec new values are written with. */
  public Codec<T> writeCodec() {
    return writeCodec;
  }

  /** The compression new values are written with. */
  public Compression compression() {
    return compression;
  }

  /**
   * What each value's schema field holds: the fingerprint of the write codec's schema when it is an
   * {@link Codec.Evolving}, else the schema version set on the builder, if one was.
   */
  public OptionalInt schemaVersion() {
    return schemaField < 0 ? OptionalInt.empty() : OptionalInt.of(schemaField);
  }

  /**
   * The schema of the values written, when the write codec is an {@link Codec.Evolving}: readers
   * that use another schema need it, so it belongs in a store such as a {@link Stowage}'s.
   */
  public Optional<String> writeSchema() {
    return Optional.ofNullable(writeSchema);
  }

  /** The largest decoded payload, in bytes, that decoding accepts. */
  public int maxDecodedSize() {
    return maxDecodedSize;
  }

  /** The budget that compressed payloads are decompressed within. */
  public DecompressionBudget decompressionBudget() {
    return budget;
  }

  /** The ids of the codecs this instance decodes, ascending. */
  public List<Integer> readableCodecIds() {
    List<Integer> ids = new ArrayList<>();
    for (int id = 1; id < readers.length; id++) {
      if (readers[id] != null) {
        ids.add(id);
      }
    }
    return List.copyOf(ids);
  }

  private String readableCodecs() {
    StringBuilder text = new StringBuilder();
    for (int id : readableCodecIds()) {
      text.append(text.length() == 0 ? "" : ", ")
          .append(readers[id].name())
          .append(" (")
          .append(id)
          .append(')');
    }
    return text.toString();
  }

  /**
   * Decodes with {@code codec}; a failure carries the header's description, or names the legacy
   * codec when {@code header} is null. The description is built only on failure: decoding is hot.
   */
  private T decodeWith(
      Codec<T> codec, byte[] data, int offset, int length, Envelope.@Nullable Header header) {
    return checked(codec, header, () -> codec.decode(data, offset, length), length);
  }

  private T checked(
      Codec<T> codec, Envelope.@Nullable Header header, Supplier<T> decoding, int length) {
    T value;
    try {
      value = decoding.get();
    } catch (StowageException e) {
      throw e.addContext(context(codec, header));
    } catch (RuntimeException | StackOverflowError e) {
      throw new CodecException(
              "codec " + codec.name() + " failed to decode " + length + " bytes: " + e, e)
          .addContext(context(codec, header));
    }
    if (value == null) {
      throw new CodecException("codec " + codec.name() + " decoded " + length + " bytes to null")
          .addContext(context(codec, header));
    }
    return value;
  }

  private static String context(Codec<?> codec, Envelope.@Nullable Header header) {
    return header == null ? "legacy codec " + codec.name() : header.describe();
  }

  @Override
  public String toString() {
    return "EnvelopeCodec[write "
        + writeCodec.name()
        + ", "
        + compression
        + ", reads "
        + readableCodecs()
        + (legacy == null ? "" : ", legacy " + legacy.name())
        + "]";
  }
}
