package dev.stowage.codec;

import dev.stowage.Codec;
import dev.stowage.samples.AvroForms;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.ProtobufForms;
import dev.stowage.samples.ThriftForms;
import dev.stowage.samples.thrift.TBoardRecord;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** Every built-in codec with values to run through it; each codec is created once per JVM. */
final class CodecCases {
  private static final ConcurrentHashMap<String, Codec<?>> CREATED = new ConcurrentHashMap<>();
  private static final List<Post> POSTS = PostFixtures.generated(50, 42);
  private static final List<Post> POST_EDGES = PostFixtures.edgeCases();
  private static final List<BoardRecord> BOARDS = BoardRecordFixtures.generated(50);
  private static final List<BoardRecord> BOARD_EDGES = BoardRecordFixtures.edgeCases();

  private CodecCases() {}

  /** The codec made by {@code factory}, created on first use and then shared. */
  @SuppressWarnings("unchecked")
  static <T> Supplier<Codec<T>> shared(String key, Supplier<Codec<T>> factory) {
    return () -> (Codec<T>) CREATED.computeIfAbsent(key, k -> factory.get());
  }

  static Stream<CodecCase<?>> all() {
    return Stream.concat(posts(), boardRecords());
  }

  /**
   * Every codec of {@link Codecs} on the first seed's board record: the plain record for the codecs
   * that take Java objects, the generated classes of the samples module for Protobuf, Avro and
   * Thrift.
   */
  static Stream<CodecCase<?>> boardRecords() {
    return Stream.of(
        boards("json", () -> Codecs.json(BoardRecord.class)),
        boards("msgpack", () -> Codecs.msgpack(BoardRecord.class)),
        boards("msgpack-compact", () -> Codecs.msgpackCompact(BoardRecord.class)),
        boards("kryo", () -> Codecs.kryo(BoardRecord.class)),
        boards("fory", () -> Codecs.fory(BoardRecord.class)),
        boards("jdk", () -> Codecs.jdk(BoardRecord.class)),
        boards("fastjson2", () -> Codecs.fastjson2(BoardRecord.class)),
        // Protobuf is not self-delimiting: a prefix that ends between fields is a valid message.
        forms(
            "protobuf",
            () -> Codecs.protobuf(dev.stowage.samples.protobuf.BoardRecord.class),
            ProtobufForms::toProtobuf,
            true),
        forms(
            "avro",
            () -> Codecs.avro(dev.stowage.samples.avro.BoardRecord.class),
            AvroForms::toAvro,
            false),
        forms("thrift", () -> Codecs.thrift(TBoardRecord.class), ThriftForms::toThrift, false));
  }

  private static Stream<CodecCase<?>> posts() {
    return Stream.of(
        posts("json", () -> Codecs.json(Post.class)),
        posts("msgpack", () -> Codecs.msgpack(Post.class)),
        posts("msgpack-compact", () -> Codecs.msgpackCompact(Post.class)),
        posts("kryo", () -> Codecs.kryo(Post.class, Post.Author.class, Post.Status.class)),
        // Fory 0.13 reads a BigDecimal cut at its digits as zero: one cut of a Post decodes.
        new CodecCase<>(
            "fory (Post)",
            shared(
                "fory/post", () -> Codecs.fory(Post.class, Post.Author.class, Post.Status.class)),
            POSTS,
            POST_EDGES,
            true),
        posts("jdk", () -> Codecs.jdk(Post.class)),
        posts("fastjson2", () -> Codecs.fastjson2(Post.class)),
        new CodecCase<>(
            "string",
            shared("string", Codecs::string),
            List.of(
                "plain",
                PostFixtures.KOREAN,
                PostFixtures.CHINESE,
                PostFixtures.EMOJI,
                "line\nbreak \u0000 nul"),
            List.of("", "x".repeat(1 << 20), "\uFFFD is a real replacement character"),
            true));
  }

  private static CodecCase<BoardRecord> boards(String name, Supplier<Codec<BoardRecord>> factory) {
    return new CodecCase<>(
        name + " (BoardRecord)", shared(name + "/board", factory), BOARDS, BOARD_EDGES, false);
  }

  private static <T> CodecCase<T> forms(
      String name,
      Supplier<Codec<T>> factory,
      Function<BoardRecord, T> form,
      boolean prefixesMayDecode) {
    return new CodecCase<>(
        name + " (BoardRecord)",
        shared(name + "/board", factory),
        BOARDS.stream().map(form).toList(),
        BOARD_EDGES.stream().map(form).toList(),
        prefixesMayDecode);
  }

  private static CodecCase<Post> posts(String name, Supplier<Codec<Post>> factory) {
    return new CodecCase<>(
        name + " (Post)", shared(name + "/post", factory), POSTS, POST_EDGES, false);
  }
}
