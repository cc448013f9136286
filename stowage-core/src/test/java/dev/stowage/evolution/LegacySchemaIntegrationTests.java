package dev.stowage.evolution;

import static dev.stowage.evolution.RecordEvolutionIntegrationTests.fields;
import static dev.stowage.evolution.RecordEvolutionIntegrationTests.make;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.ClassVersions;
import dev.stowage.testkit.WithRedis;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Schemas that Stowage wrote before 0.1 (no format marker; one {@code "int"} for every integer
 * width, one {@code "float"}, one {@code "text"} for every text-like type, {@code "any"} for every
 * JDK value type) are still in Redis after an upgrade. They parse, and resolve by stricter rules:
 * an integer reads as a {@code long}, or as a narrower integer or a {@code double} when the value
 * fits exactly; a floating-point number only as a {@code double}; text as text, or as a {@code
 * char} or an enum constant when it is exactly one; {@code "any"} only as {@code Object}.
 */
@WithRedis
class LegacySchemaIntegrationTests {
  private static Map<String, Class<?>> types;

  @BeforeAll
  static void compile() {
    Map<String, String> sources =
        Map.ofEntries(
            Map.entry("LongBox", "public record LongBox(long f) {}"),
            Map.entry("IntBox", "public record IntBox(int f) {}"),
            Map.entry("ByteBox", "public record ByteBox(byte f) {}"),
            Map.entry("DoubleBox", "public record DoubleBox(double f) {}"),
            Map.entry("FloatBox", "public record FloatBox(float f) {}"),
            Map.entry("StringBox", "public record StringBox(String f) {}"),
            Map.entry("CharBox", "public record CharBox(char f) {}"),
            Map.entry("Color", "public enum Color { RED, GREEN }"),
            Map.entry("ColorBox", "public record ColorBox(Color f) {}"),
            Map.entry("InstantBox", "public record InstantBox(java.time.Instant f) {}"),
            Map.entry("ObjectBox", "public record ObjectBox(Object f) {}"),
            Map.entry("LongMap", "public record LongMap(java.util.Map<String, Long> f) {}"),
            Map.entry("IntMap", "public record IntMap(java.util.Map<String, Integer> f) {}"),
            Map.entry("TextMap", "public record TextMap(java.util.Map<String, String> f) {}"),
            Map.entry(
                "KeyedByInt", "public record KeyedByInt(java.util.Map<Integer, String> f) {}"));
    ClassLoader loader = ClassVersions.compile(sources);
    types =
        sources.keySet().stream()
            .collect(Collectors.toMap(name -> name, name -> ClassVersions.load(loader, name)));
  }

  private static String legacy(String fieldType) {
    return "{\"root\":{\"record\":0},\"records\":[{\"fields\":[{\"name\":\"f\",\"type\":"
        + fieldType
        + "}]}]}";
  }

  @Test
  void aPreviousIntegerReadsAsALongAndAsANarrowerTypeOnlyWhenItFits() {
    String schema = legacy("\"int\"");
    assertThat(read("LongBox", 5_000_000_000L, "LongBox", schema)).isEqualTo(5_000_000_000L);
    assertThat(read("LongBox", 7L, "IntBox", schema)).isEqualTo(7);
    assertThat(read("IntBox", 5, "ByteBox", schema)).isEqualTo((byte) 5);
    assertThat(read("IntBox", -128, "ByteBox", schema)).isEqualTo((byte) -128);
    assertThat(read("LongBox", 1L << 53, "DoubleBox", schema)).isEqualTo(9.007199254740992E15);
    assertRefused("LongBox", 5_000_000_000L, "IntBox", schema, "value.f holds 5000000000");
    assertRefused("IntBox", 200, "ByteBox", schema, "value.f holds 200");
    assertRefused("LongBox", (1L << 53) + 1, "DoubleBox", schema, "value.f holds 9007199254740993");
    assertRefused(
        "LongBox", 1_700_000_000_123L, "InstantBox", schema, "value.f was written as an integer");
    assertRefused("LongBox", 3L, "FloatBox", schema, "value.f was written as an integer");
  }

  @Test
  void aPreviousFloatReadsOnlyAsADouble() {
    String schema = legacy("\"float\"");
    assertThat(read("DoubleBox", 1e300, "DoubleBox", schema)).isEqualTo(1e300);
    assertThat(read("FloatBox", 0.1f, "DoubleBox", schema)).isEqualTo((double) 0.1f);
    assertRefused(
        "DoubleBox", 1.5, "FloatBox", schema, "value.f was written as a floating-point number");
  }

  @Test
  void previousTextReadsAsTextOrAsACharOrConstantItIsExactly() {
    String schema = legacy("\"text\"");
    assertThat(read("StringBox", "hello", "StringBox", schema)).isEqualTo("hello");
    assertThat(read("StringBox", "a", "CharBox", schema)).isEqualTo('a');
    assertThat(read("StringBox", "GREEN", "ColorBox", schema)).hasToString("GREEN");
    assertRefused("StringBox", "ab", "CharBox", schema, "value.f holds \"ab\"");
    // Jackson would read "1" as the constant at index 1.
    assertRefused("StringBox", "1", "ColorBox", schema, "value.f holds \"1\"");
    assertRefused(
        "StringBox", "2023-11-14T22:13:20Z", "InstantBox", schema, "value.f was written as text");
  }

  @Test
  void previousAnyReadsOnlyAsObject() {
    String schema = legacy("\"any\"");
    Instant instant = Instant.ofEpochMilli(1_700_000_000_123L);
    assertThat(read("InstantBox", instant, "ObjectBox", schema)).isEqualTo(instant.toString());
    assertRefused("InstantBox", instant, "InstantBox", schema, "value.f was written as any");
  }

  @Test
  void previousMapsCheckTheirValuesAndTheirKeys() {
    assertThat(read("LongMap", Map.of("a", 5_000_000_000L), "LongMap", legacy("{\"map\":\"int\"}")))
        .isEqualTo(Map.of("a", 5_000_000_000L));
    assertThat(read("LongMap", Map.of("a", 5L), "IntMap", legacy("{\"map\":\"int\"}")))
        .isEqualTo(Map.of("a", 5));
    assertRefused(
        "LongMap",
        Map.of("a", 5_000_000_000L),
        "IntMap",
        legacy("{\"map\":\"int\"}"),
        "value.f{} holds 5000000000");
    assertThat(read("TextMap", Map.of("12", "a"), "KeyedByInt", legacy("{\"map\":\"text\"}")))
        .isEqualTo(Map.of(12, "a"));
    assertRefused(
        "TextMap",
        Map.of("x", "a"),
        "KeyedByInt",
        legacy("{\"map\":\"text\"}"),
        "value.f{key} holds \"x\"");
    assertRefused(
        "TextMap",
        Map.of("012", "a"),
        "KeyedByInt",
        legacy("{\"map\":\"text\"}"),
        "value.f{key} holds \"012\"");
  }

  @Test
  void namedValuesOfAPreviousSchemaAreCheckedToo() {
    Codec.Evolving<Object> writer =
        (Codec.Evolving<Object>) Codecs.msgpack(raw(types.get("LongBox")));
    Codec.Evolving<Object> reader =
        (Codec.Evolving<Object>) Codecs.msgpack(raw(types.get("IntBox")));
    byte[] big = writer.encode(make(types.get("LongBox"), 5_000_000_000L));
    byte[] small = writer.encode(make(types.get("LongBox"), 9L));

    assertThatThrownBy(() -> reader.decode(big, 0, big.length, legacy("\"int\"")))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("value.f holds 5000000000");
    assertThat(fields(reader.decode(small, 0, small.length, legacy("\"int\"")))).containsExactly(9);
  }

  @Test
  void aPreviousSchemaInRedisIsACountedMissWhereAValueDoesNotFit(RedisServer redis) {
    redis.flushAll();
    Class<?> longBox = types.get("LongBox");
    Class<?> intBox = types.get("IntBox");
    try (Stowage oldProcess = Stowage.builder().redis(redis.uri()).build();
        Stowage newProcess = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, Object> writer =
          oldProcess
              .cache("boxes", raw(longBox))
              .encoding(
                  Encoding.of(
                          new PreviousFormat(Codecs.defaultFor(raw(longBox)), legacy("\"int\"")))
                      .compression(Compression.standard()))
              .build();
      RedisCache<String, Object> reader =
          newProcess
              .cache("boxes", raw(intBox))
              .encoding(Encoding.defaultFor(raw(intBox)).compression(Compression.standard()))
              .build();
      writer.put("big", make(longBox, 5_000_000_000L));
      writer.put("small", make(longBox, 7L));

      assertThat(reader.get("big")).isNull();
      assertThat(fields(reader.get("small"))).containsExactly(7);
      assertThat(reader.stats().decodeFailures()).isEqualTo(1);
      assertThat(reader.stats().hits()).isEqualTo(1);
    }
  }

  // ------------------------------------------------------------------ helpers

  /**
   * What a codec of Stowage before 0.1 wrote: the same bytes, described by a schema without a
   * format.
   */
  private record PreviousFormat(Codec<Object> codec, String schema)
      implements Codec.Evolving<Object> {
    @Override
    public int id() {
      return codec.id();
    }

    @Override
    public byte[] encode(Object value) {
      return codec.encode(value);
    }

    @Override
    public Object decode(byte[] data, int offset, int length) {
      return codec.decode(data, offset, length);
    }

    @Override
    public Object decode(byte[] data, int offset, int length, String writerSchema) {
      throw new UnsupportedOperationException("only writes");
    }
  }

  private static Object read(String writerType, Object value, String readerType, String schema) {
    byte[] bytes =
        Codecs.defaultFor(raw(types.get(writerType))).encode(make(types.get(writerType), value));
    Codec.Evolving<Object> reader =
        (Codec.Evolving<Object>) Codecs.defaultFor(raw(types.get(readerType)));
    return fields(reader.decode(bytes, 0, bytes.length, schema)).get(0);
  }

  private static void assertRefused(
      String writerType, Object value, String readerType, String schema, String message) {
    byte[] bytes =
        Codecs.defaultFor(raw(types.get(writerType))).encode(make(types.get(writerType), value));
    Codec.Evolving<Object> reader =
        (Codec.Evolving<Object>) Codecs.defaultFor(raw(types.get(readerType)));
    assertThatThrownBy(() -> reader.decode(bytes, 0, bytes.length, schema))
        .as("%s %s read as %s", writerType, value, readerType)
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(message);
  }

  @SuppressWarnings("unchecked")
  private static Class<Object> raw(Class<?> type) {
    return (Class<Object>) type;
  }
}
