package dev.stowage.codec;

import dev.stowage.Codec;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** Every built-in codec with values to run through it; each codec is created once per JVM. */
final class CodecCases {
  private static final ConcurrentHashMap<String, Codec<?>> CREATED = new ConcurrentHashMap<>();
  private static final List<Post> POSTS = PostFixtures.generated(50, 42);
  private static final List<Post> POST_EDGES = PostFixtures.edgeCases();

  private CodecCases() {}

  /** The codec made by {@code factory}, created on first use and then shared. */
  @SuppressWarnings("unchecked")
  static <T> Supplier<Codec<T>> shared(String key, Supplier<Codec<T>> factory) {
    return () -> (Codec<T>) CREATED.computeIfAbsent(key, k -> factory.get());
  }

  static Stream<CodecCase<?>> all() {
    return Stream.of(
        posts("json", () -> Codecs.json(Post.class)),
        posts("msgpack", () -> Codecs.msgpack(Post.class)),
        posts("msgpack-compact", () -> Codecs.msgpackCompact(Post.class)),
        posts("kryo", () -> Codecs.kryo(Post.class, Post.Author.class, Post.Status.class)),
        // Fory 0.13 reads a BigDecimal cut at its digits as zero: one cut of a Post decodes.
        new CodecCase<>("fory (Post)", shared("fory/post", () -> Codecs.fory(Post.class, Post.Author.class,
            Post.Status.class)), POSTS, POST_EDGES, true),
        posts("jdk", () -> Codecs.jdk(Post.class)),
        posts("fastjson2", () -> Codecs.fastjson2(Post.class)),
        new CodecCase<>("string", shared("string", Codecs::string),
            List.of("plain", PostFixtures.KOREAN, PostFixtures.CHINESE, PostFixtures.EMOJI, "line\nbreak \u0000 nul"),
            List.of("", "x".repeat(1 << 20), "\uFFFD is a real replacement character"), true));
  }

  private static CodecCase<Post> posts(String name, Supplier<Codec<Post>> factory) {
    return new CodecCase<>(name + " (Post)", shared(name + "/post", factory), POSTS, POST_EDGES, false);
  }
}
