package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Codec;
import dev.stowage.codec.BoardRecordFixtures;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.envelope.EnvelopeCodecBuilder;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.samples.AvroForms;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.ProtobufForms;
import dev.stowage.samples.Samples;
import dev.stowage.samples.ThriftForms;
import dev.stowage.samples.thrift.TBoardRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every codec of {@link Codecs} × every compression (none, lz4, zstd, zstd with a dictionary
 * trained on that codec's board records) on generated board records and edge cases, and reading
 * across configurations: a value written with one codec and compression is read by a codec
 * configured for any other.
 */
class BoardRecordEnvelopeUnitTests {

  private static final List<BoardRecord> GENERATED = BoardRecordFixtures.generated(40);
  private static final List<BoardRecord> EDGES = BoardRecordFixtures.edgeCases();
  private static final Map<String, ZstdDictionary> DICTIONARIES = new ConcurrentHashMap<>();

  /** One codec of {@link Codecs} with the form of the board record it encodes. */
  record Form<T>(String name, Codec<T> codec, Function<BoardRecord, T> convert) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Form<?>> forms() {
    return List.of(
        plain("json", Codecs.json(BoardRecord.class)),
        plain("msgpack", Codecs.msgpack(BoardRecord.class)),
        plain("msgpack-compact", Codecs.msgpackCompact(BoardRecord.class)),
        plain("kryo", Codecs.kryo(BoardRecord.class)),
        plain("fory", Codecs.fory(BoardRecord.class)),
        plain("jdk", Codecs.jdk(BoardRecord.class)),
        plain("fastjson2", Codecs.fastjson2(BoardRecord.class)),
        new Form<>(
            "protobuf",
            Codecs.protobuf(dev.stowage.samples.protobuf.BoardRecord.class),
            ProtobufForms::toProtobuf),
        new Form<>(
            "avro", Codecs.avro(dev.stowage.samples.avro.BoardRecord.class), AvroForms::toAvro),
        new Form<>("thrift", Codecs.thrift(TBoardRecord.class), ThriftForms::toThrift));
  }

  private static Form<BoardRecord> plain(String name, Codec<BoardRecord> codec) {
    return new Form<>(name, codec, Function.identity());
  }

  /**
   * none, lz4, zstd, and zstd with a 16 KiB dictionary trained on 1000 other records in this
   * codec's bytes.
   */
  static <T> List<Compression> compressions(Form<T> form) {
    return List.of(
        Compression.none(),
        Compression.lz4(),
        Compression.zstd(),
        CompressionAccess.zstd(dictionary(form)));
  }

  private static <T> ZstdDictionary dictionary(Form<T> form) {
    return DICTIONARIES.computeIfAbsent(
        form.name(),
        name -> {
          List<byte[]> samples = new ArrayList<>();
          for (BoardRecord record : Samples.boards(10_000, 1000)) {
            samples.add(form.codec().encode(form.convert().apply(record)));
          }
          return ZstdDictionary.train(samples, 16 * 1024);
        });
  }

  static Stream<Arguments> codecsAndCompressions() {
    return forms().stream()
        .flatMap(form -> compressions(form).stream().map(c -> Arguments.of(form, c)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("codecsAndCompressions")
  <T> void generatedRecordsAndEdgeCasesRoundTrip(Form<T> form, Compression compression) {
    Codec<T> other = new RenumberedCodec<>(form.codec(), 200);
    int compressed = 0;
    for (BoardRecord record : GENERATED) {
      byte[] encoded =
          EnvelopeRoundTrip.assertRoundTrip(
              form.codec(), other, compression, form.convert().apply(record));
      if (Envelope.readHeader(encoded).compressionId() != CompressionIds.NONE) {
        compressed++;
      }
    }
    for (BoardRecord record : EDGES) {
      EnvelopeRoundTrip.assertRoundTrip(
          form.codec(), other, compression, form.convert().apply(record));
    }
    if (compression.id() == CompressionIds.ZSTD_DICT) {
      assertThat(compressed).as("records the dictionary compressed").isEqualTo(GENERATED.size());
    }
  }

  @Test
  void aValueWrittenWithAnyCodecAndCompressionReadsThroughAReaderConfiguredForAnyOther() {
    // The codecs that take the plain record; each is written with all four compressions.
    List<Form<BoardRecord>> plain =
        forms().stream()
            .filter(
                form -> form.name().matches("json|msgpack|msgpack-compact|kryo|fory|jdk|fastjson2"))
            .map(BoardRecordEnvelopeUnitTests::cast)
            .toList();
    List<Codec<BoardRecord>> codecs = plain.stream().map(Form::codec).toList();
    List<ZstdDictionary> dictionaries = new ArrayList<>();
    Map<String, EnvelopeCodec<BoardRecord>> writers = new LinkedHashMap<>();
    for (Form<BoardRecord> form : plain) {
      for (Compression compression : compressions(form)) {
        CompressionAccess.dictionary(compression).ifPresent(dictionaries::add);
        writers.put(
            form.name() + "+" + compressionName(compression),
            EnvelopeCodec.builder(form.codec()).compression(compression).build());
      }
    }
    List<BoardRecord> values = new ArrayList<>(GENERATED.subList(0, 5));
    values.addAll(EDGES);
    Map<String, List<byte[]>> written = new LinkedHashMap<>();
    writers.forEach(
        (name, writer) -> written.put(name, values.stream().map(writer::encode).toList()));

    DictionaryResolver resolver =
        DictionaryResolver.of(dictionaries.toArray(ZstdDictionary[]::new));
    int checked = 0;
    for (Codec<BoardRecord> readCodec : codecs) {
      for (Compression readCompression :
          List.of(Compression.none(), Compression.lz4(), Compression.zstd())) {
        EnvelopeCodec<BoardRecord> reader = readerFor(readCodec, readCompression, codecs, resolver);
        for (Map.Entry<String, List<byte[]>> entry : written.entrySet()) {
          for (int i = 0; i < values.size(); i++) {
            assertThat(reader.decode(entry.getValue().get(i)))
                .as(
                    "%s value %d read by a reader writing %s+%s",
                    entry.getKey(), i, readCodec.name(), compressionName(readCompression))
                .isEqualTo(values.get(i));
            checked++;
          }
        }
      }
    }
    assertThat(checked).isEqualTo(7 * 3 * 28 * values.size());
  }

  @Test
  void jsonWithZstdReadsThroughACacheConfiguredForMsgpackWithLz4AndBack() {
    Codec<BoardRecord> json = Codecs.json(BoardRecord.class);
    Codec<BoardRecord> msgpack = Codecs.msgpackCompact(BoardRecord.class);
    EnvelopeCodec<BoardRecord> jsonZstd =
        EnvelopeCodec.builder(json).compression(Compression.zstd()).alsoRead(msgpack).build();
    EnvelopeCodec<BoardRecord> msgpackLz4 =
        EnvelopeCodec.builder(msgpack).compression(Compression.lz4()).alsoRead(json).build();
    for (BoardRecord record : GENERATED) {
      byte[] fromJson = jsonZstd.encode(record);
      byte[] fromMsgpack = msgpackLz4.encode(record);
      assertThat(Envelope.readHeader(fromJson).codecId()).isEqualTo(json.id());
      assertThat(Envelope.readHeader(fromMsgpack).codecId()).isEqualTo(msgpack.id());
      assertThat(msgpackLz4.decode(fromJson)).isEqualTo(record);
      assertThat(jsonZstd.decode(fromMsgpack)).isEqualTo(record);
    }
  }

  private static EnvelopeCodec<BoardRecord> readerFor(
      Codec<BoardRecord> write,
      Compression compression,
      List<Codec<BoardRecord>> all,
      DictionaryResolver resolver) {
    EnvelopeCodecBuilder<BoardRecord> builder =
        EnvelopeCodec.builder(write).compression(compression).dictionaries(resolver);
    Set<Integer> ids = new HashSet<>();
    ids.add(write.id());
    for (Codec<BoardRecord> codec : all) {
      // Named and compact MessagePack share an id; either reads both shapes.
      if (ids.add(codec.id())) {
        builder.alsoRead(codec);
      }
    }
    return builder.build();
  }

  private static String compressionName(Compression compression) {
    return switch (compression.id()) {
      case CompressionIds.NONE -> "none";
      case CompressionIds.LZ4 -> "lz4";
      case CompressionIds.ZSTD -> "zstd";
      default -> "zstd-dict";
    };
  }

  @SuppressWarnings("unchecked")
  private static Form<BoardRecord> cast(Form<?> form) {
    return (Form<BoardRecord>) form;
  }

  /** The same format under another id, for the cross-reading check of {@link EnvelopeRoundTrip}. */
  private record RenumberedCodec<T>(Codec<T> delegate, int id) implements Codec<T> {
    @Override
    public byte[] encode(T value) {
      return delegate.encode(value);
    }

    @Override
    public T decode(byte[] data, int offset, int length) {
      return delegate.decode(data, offset, length);
    }
  }
}
