package dev.stowage.bench.codecs;

import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.compress.Compression;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.zip.Deflater;

/**
 * One configuration of table T3, ready to measure: {@value #RECORDS} distinct records, how to build
 * each in the codec's own form from its field values, and how to encode and decode it (bare, or
 * through an {@link Encoding.Serializer} with the variant's compression).
 *
 * <p>Instances are not thread-safe; JMH gives each benchmark thread its own.
 *
 * @param <S> the plain Java record the data starts as
 * @param <T> the codec's own form of it
 */
public final class CodecFixture<S, T> {

  /** How many distinct records a batch cycles through. */
  public static final int RECORDS = 64;

  /**
   * How many other records of the same shape train the zstd dictionary: as many as a cache or feed
   * learns its dictionary from ({@link Encoding#DEFAULT_LEARNING_SAMPLES}).
   */
  public static final int DICTIONARY_SAMPLES = Encoding.DEFAULT_LEARNING_SAMPLES;

  /**
   * The most the trained zstd dictionary takes, in bytes, as a learned one ({@link
   * Encoding#DEFAULT_LEARNED_DICTIONARY_SIZE}); like a cache, the bench asks for at most a quarter
   * of the samples' bytes.
   */
  public static final int DICTIONARY_SIZE = Encoding.DEFAULT_LEARNED_DICTIONARY_SIZE;

  private final String description;
  private final List<S> sources;
  private final Function<S, T> create;
  private final Function<T, byte[]> encode;
  private final Function<byte[], T> decode;

  private CodecFixture(
      String description,
      List<S> sources,
      Function<S, T> create,
      Function<T, byte[]> encode,
      Function<byte[], T> decode) {
    this.description = description;
    this.sources = List.copyOf(sources);
    this.create = create;
    this.encode = encode;
    this.decode = decode;
  }

  /**
   * The fixture for one configuration. The records and the dictionary's training samples come from
   * the samples module's fixed seed, so every JVM builds the same fixture.
   *
   * @throws dev.stowage.StowageException if the codec cannot be built, for example because its
   *     library is missing
   */
  public static CodecFixture<?, ?> create(
      CodecUnderTest codec, PayloadVariant variant, DataShape data) {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(variant, "variant");
    Objects.requireNonNull(data, "data");
    return CodecForms.of(codec, data).fixture(variant, RECORDS, DICTIONARY_SAMPLES);
  }

  /**
   * A fixture over {@code sources} with a codec's form: {@code create} builds the codec's object
   * from a record, {@code codec} encodes it, and {@code trainingSamples} (other records, already in
   * the codec's form) train the dictionary when the variant is zstd-dict.
   */
  static <S, T> CodecFixture<S, T> of(
      String description,
      List<S> sources,
      Function<S, T> create,
      Codec<T> codec,
      PayloadVariant variant,
      List<T> trainingSamples) {
    if (variant == PayloadVariant.BARE) {
      return new CodecFixture<>(description, sources, create, codec::encode, codec::decode);
    }
    Encoding.Serializer<T> envelope = envelope(codec, variant, trainingSamples);
    return new CodecFixture<>(description, sources, create, envelope::encode, envelope::decode);
  }

  private static <T> Encoding.Serializer<T> envelope(
      Codec<T> codec, PayloadVariant variant, List<T> trainingSamples) {
    Encoding<T> encoding = Encoding.of(codec);
    return switch (variant) {
      case NONE -> encoding.compression(Compression.none()).serializer();
      case LZ4 -> encoding.compression(Compression.lz4()).serializer();
      case ZSTD -> encoding.compression(Compression.zstd()).serializer();
      case ZSTD_DICT -> {
        long total = 0;
        for (T sample : trainingSamples) {
          total += codec.encode(sample).length;
        }
        int size =
            (int) Math.max(Encoding.MIN_DICTIONARY_SIZE, Math.min(DICTIONARY_SIZE, total / 4));
        yield encoding.trainDictionary(trainingSamples, size).serializer();
      }
      default -> throw new IllegalArgumentException("not an envelope variant: " + variant);
    };
  }

  /** How many records a batch holds. */
  public int records() {
    return sources.size();
  }

  /** Builds record {@code index} in the codec's form, from its field values. */
  public T create(int index) {
    return create.apply(sources.get(index));
  }

  /** Encodes a value as this configuration stores it. */
  public byte[] encode(T value) {
    return encode.apply(value);
  }

  /** Decodes a value this configuration stored. */
  public T decode(byte[] bytes) {
    return decode.apply(bytes);
  }

  /**
   * Checks that every record comes back equal to what was encoded, so that no codec is measured
   * doing less than the others.
   *
   * @throws IllegalStateException naming the configuration and record, if one does not
   */
  public void verifyRoundTrips() {
    for (int i = 0; i < records(); i++) {
      T value = create(i);
      T back = decode(encode(value));
      if (!value.equals(back)) {
        throw new IllegalStateException(
            description
                + ": record "
                + i
                + " did not survive the round trip:"
                + System.lineSeparator()
                + "  wrote "
                + value
                + System.lineSeparator()
                + "  read  "
                + back);
      }
    }
  }

  /** The bytes all the records encode to, together. */
  public long encodedBytes() {
    long total = 0;
    for (int i = 0; i < records(); i++) {
      total += encode(create(i)).length;
    }
    return total;
  }

  /**
   * The bytes all the records take after {@link Deflater} at its default level (each record
   * compressed on its own, as jvm-serializers' {@code +dfl} column does), together.
   */
  public long deflatedBytes() {
    long total = 0;
    Deflater deflater = new Deflater();
    byte[] buffer = new byte[4096];
    try {
      for (int i = 0; i < records(); i++) {
        deflater.reset();
        deflater.setInput(encode(create(i)));
        deflater.finish();
        while (!deflater.finished()) {
          total += deflater.deflate(buffer);
        }
      }
    } finally {
      deflater.end();
    }
    return total;
  }

  @Override
  public String toString() {
    return description;
  }
}
