package dev.stowage.bench.codecs;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.codec.Codecs;
import dev.stowage.samples.AvroForms;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Image;
import dev.stowage.samples.Media;
import dev.stowage.samples.MediaContent;
import dev.stowage.samples.ProtobufForms;
import dev.stowage.samples.Samples;
import dev.stowage.samples.ThriftForms;
import dev.stowage.samples.thrift.TBoardRecord;
import dev.stowage.samples.thrift.TMediaContent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Each codec's form of each data shape: the records the samples module makes, how the codec's own
 * object is built from one (a copy of the record for the codecs that take plain Java objects; the
 * generated message, record or struct for Protobuf, Avro and Thrift), and the codec from {@link
 * Codecs}.
 *
 * <p>The measured records are samples {@code 0} to {@code records - 1}; the dictionary trains on
 * the next {@code samples} records, so it never sees the records it compresses. The records are
 * made once per JVM and shared (they are immutable), so that a run of many configurations in one
 * JVM ({@code --quick}) does not spend its time in datafaker.
 *
 * @param <S> the plain record
 * @param <T> the codec's form of it
 */
final class CodecForms<S, T> {

  /** Immutable sample lists by shape, first index and count. */
  private static final Map<String, List<?>> SAMPLES = new ConcurrentHashMap<>();

  private final String description;
  private final Function<Integer, List<S>> firstRecords;
  private final Function<Integer, List<S>> otherRecords;
  private final Function<S, T> create;
  private final Codec<T> codec;

  private CodecForms(
      String description,
      Function<Integer, List<S>> firstRecords,
      Function<Integer, List<S>> otherRecords,
      Function<S, T> create,
      Codec<T> codec) {
    this.description = description;
    this.firstRecords = firstRecords;
    this.otherRecords = otherRecords;
    this.create = create;
    this.codec = codec;
  }

  /**
   * The forms of {@code codec} on {@code data}.
   *
   * @throws dev.stowage.StowageException if the codec cannot be built, for example because its
   *     library is missing
   */
  static CodecForms<?, ?> of(CodecUnderTest codec, DataShape data) {
    return switch (data) {
      case BOARD -> board(codec);
      case MEDIA -> media(codec);
    };
  }

  /** The fixture for one payload variant over the first {@code records} records. */
  CodecFixture<S, T> fixture(PayloadVariant variant, int records, int samples) {
    List<S> sources = firstRecords.apply(records);
    List<T> training = List.of();
    if (variant == PayloadVariant.ZSTD_DICT) {
      List<S> others = otherRecords.apply(samples);
      training = new ArrayList<>(others.size());
      for (S other : others) {
        training.add(create.apply(other));
      }
    }
    return CodecFixture.of(description + " " + variant, sources, create, codec, variant, training);
  }

  private static CodecForms<BoardRecord, ?> board(CodecUnderTest codec) {
    String description = codec + " board";
    Function<Integer, List<BoardRecord>> first =
        n -> shared("board", 0, n, () -> Samples.boards(n));
    Function<Integer, List<BoardRecord>> others =
        n ->
            shared("board", CodecFixture.RECORDS, n, () -> Samples.boards(CodecFixture.RECORDS, n));
    return switch (codec) {
      case PROTOBUF ->
          new CodecForms<>(
              description,
              first,
              others,
              ProtobufForms::toProtobuf,
              Codecs.protobuf(dev.stowage.samples.protobuf.BoardRecord.class));
      case AVRO ->
          new CodecForms<>(
              description,
              first,
              others,
              AvroForms::toAvro,
              Codecs.avro(dev.stowage.samples.avro.BoardRecord.class));
      case THRIFT ->
          new CodecForms<>(
              description, first, others, ThriftForms::toThrift, Codecs.thrift(TBoardRecord.class));
      default ->
          new CodecForms<>(
              description, first, others, CodecForms::copy, plainCodec(codec, BoardRecord.class));
    };
  }

  private static CodecForms<MediaContent, ?> media(CodecUnderTest codec) {
    String description = codec + " media";
    Function<Integer, List<MediaContent>> first =
        n -> shared("media", 0, n, () -> Samples.mediaContents(n));
    Function<Integer, List<MediaContent>> others =
        n ->
            shared(
                "media",
                CodecFixture.RECORDS,
                n,
                () -> Samples.mediaContents(CodecFixture.RECORDS, n));
    return switch (codec) {
      case PROTOBUF ->
          new CodecForms<>(
              description,
              first,
              others,
              ProtobufForms::toProtobuf,
              Codecs.protobuf(dev.stowage.samples.protobuf.MediaContent.class));
      case AVRO ->
          new CodecForms<>(
              description,
              first,
              others,
              AvroForms::toAvro,
              Codecs.avro(dev.stowage.samples.avro.MediaContent.class));
      case THRIFT ->
          new CodecForms<>(
              description,
              first,
              others,
              ThriftForms::toThrift,
              Codecs.thrift(TMediaContent.class));
      default ->
          new CodecForms<>(
              description, first, others, CodecForms::copy, plainCodec(codec, MediaContent.class));
    };
  }

  @SuppressWarnings("unchecked")
  private static <S> List<S> shared(String shape, long from, int n, Supplier<List<S>> make) {
    return (List<S>)
        SAMPLES.computeIfAbsent(shape + ":" + from + ":" + n, key -> List.copyOf(make.get()));
  }

  /** The codecs that take the plain record, with the media content's nested classes registered. */
  private static <T> Codec<T> plainCodec(CodecUnderTest codec, Class<T> type) {
    Class<?>[] nested =
        type == MediaContent.class
            ? MediaContent.nestedTypes().toArray(Class<?>[]::new)
            : new Class<?>[0];
    return switch (codec) {
      case JSON -> Codecs.json(type);
      case FASTJSON2 -> Codecs.fastjson2(type);
      case MSGPACK -> Codecs.msgpack(type);
      case MSGPACK_COMPACT -> Codecs.msgpackCompact(type);
      case KRYO -> Codecs.kryo(type, nested);
      case FORY -> Codecs.fory(type, nested);
      case JDK -> Codecs.forName("jdk", type, nested);
      case PROTOBUF, AVRO, THRIFT ->
          throw new IllegalArgumentException(codec + " has its own generated classes");
    };
  }

  /** A board record built from the field values of another, as an application builds one. */
  private static BoardRecord copy(BoardRecord r) {
    return new BoardRecord(
        r.id(),
        r.score(),
        r.memberId(),
        r.title(),
        r.body(),
        r.address(),
        r.country(),
        r.job(),
        r.credit(),
        r.ssn(),
        r.company(),
        r.phoneNumber(),
        r.modifiedAt(),
        r.createdAt(),
        r.createdTs());
  }

  /** A media content built from the field values of another, nested objects included. */
  private static MediaContent copy(MediaContent c) {
    // The samples' media contents have them all.
    Media m = requireNonNull(c.media(), "media");
    Media media =
        new Media(
            m.uri(),
            m.title(),
            m.width(),
            m.height(),
            m.format(),
            m.duration(),
            m.size(),
            m.bitrate(),
            m.hasBitrate(),
            new ArrayList<>(requireNonNull(m.persons(), "persons")),
            m.player(),
            m.copyright());
    List<Image> given = requireNonNull(c.images(), "images");
    List<Image> images = new ArrayList<>(given.size());
    for (Image i : given) {
      images.add(new Image(i.uri(), i.title(), i.width(), i.height(), i.size()));
    }
    return new MediaContent(media, images);
  }

  @Override
  public String toString() {
    return description;
  }
}
