package dev.stowage.evolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CacheStats;
import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Currency;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every pair of field types the default codec supports: a record {@code Holder(T f)} is compiled
 * once per type {@code T}, each in a class loader of its own, and for every writer type, reader
 * type and sample value of the writer's type, one process writes and another reads. Each read is
 * either a miss (refused, with a message that names the field) or exactly the value written
 * (numbers by their exact decimal value, text by its string, temporal values by their value, enums
 * by name, lists and maps element by element). Checked at the codec (every pair, with the refusal's
 * message, in both MessagePack shapes) and through real caches on a real Redis, where the reader
 * finds the writer's schema in Redis and a refusal is a counted decode failure.
 *
 * <p>The variants are compiled in one run of the compiler, each in a package of its own ({@code
 * evo.v<n>.Holder}): schemas never name the application's classes, so the package changes nothing
 * but keeps the test within seconds.
 */
@WithRedis
class FieldTypeEvolutionIntegrationTests {
  @SuppressWarnings(
      "JavaUtilDate") // values of java.util.Date are among the types a field may change to
  private static final List<FieldType> TYPES =
      List.of(
          type("boolean", true, false),
          type("Boolean", true),
          type("byte", (byte) -128, (byte) 127, (byte) 5),
          type("Byte", (byte) -3),
          type("short", (short) -32768, (short) 300),
          type("Short", (short) 1000),
          type("int", 200, Integer.MIN_VALUE, Integer.MAX_VALUE, 16_777_217),
          type("Integer", 200, -7),
          type(
              "long",
              5_000_000_000L,
              1_700_000_000_123L,
              30_000L,
              Long.MIN_VALUE,
              9_007_199_254_740_993L),
          type("Long", 42L, -5_000_000_000L),
          type("float", 0.1f, Float.MAX_VALUE, 16_777_216f, 1.5f),
          type("Float", -2.75f),
          type("double", 1e300, 0.1, 2.5, 1e-300),
          type("Double", 3.0, -0.1),
          type("char", 'a', '\u00e9'),
          type("Character", 'Z'),
          type(
              "String",
              "hello",
              "200",
              "1700000000123",
              "RED",
              "2023-11-14T22:13:20Z",
              "x",
              "PT30S"),
          type(
              "java.math.BigInteger",
              new BigInteger("1180591620717411303424"),
              BigInteger.valueOf(-5)),
          type(
              "java.math.BigDecimal",
              new BigDecimal("1.50"),
              new BigDecimal("1E-40"),
              new BigDecimal("12345678901234567890.123")),
          type("java.util.UUID", UUID.fromString("3f2504e0-4f89-11d3-9a0c-0305e82c3301")),
          type("java.time.Instant", Instant.ofEpochMilli(1_700_000_000_123L)),
          type("java.time.Duration", Duration.ofSeconds(30), Duration.ofMillis(1_500)),
          type("java.time.Period", Period.of(1, 2, 3)),
          type("java.time.LocalDate", LocalDate.of(2023, 11, 14)),
          type("java.time.LocalDateTime", LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123_000_000)),
          type("java.time.LocalTime", LocalTime.of(22, 13, 20)),
          type(
              "java.time.OffsetDateTime",
              OffsetDateTime.of(2023, 11, 14, 22, 13, 20, 0, ZoneOffset.ofHours(2))),
          type("java.time.OffsetTime", OffsetTime.of(22, 13, 20, 0, ZoneOffset.ofHours(-5))),
          type(
              "java.time.ZonedDateTime",
              ZonedDateTime.of(2023, 11, 14, 22, 13, 20, 0, ZoneOffset.UTC)),
          type("java.time.Year", Year.of(2023)),
          type("java.time.YearMonth", YearMonth.of(2023, 11)),
          type("java.time.MonthDay", MonthDay.of(11, 14)),
          type("java.util.Date", new Date(1_700_000_000_123L)),
          type("java.net.URI", URI.create("https://example.com/a?b=c")),
          type("java.util.Locale", Locale.CANADA_FRENCH),
          type("java.util.Currency", Currency.getInstance("EUR")),
          enumType("Color", List.of("RED", "GREEN"), "RED", "GREEN"),
          enumType("Color", List.of("RED", "GREEN", "BLUE"), "BLUE", "RED"),
          enumType("Color", List.of("RED"), "RED"),
          enumType("Shade", List.of("LIGHT", "DARK"), "DARK"),
          type("byte[]", (Object) new byte[] {1, 2, -3}),
          type("int[]", (Object) new int[] {1, 200}),
          type("long[]", (Object) new long[] {5_000_000_000L, 7L}),
          type("java.util.List<Integer>", List.of(1, 200, -3)),
          type("java.util.List<Long>", List.of(5_000_000_000L, 7L)),
          type("java.util.List<String>", List.of("a", "200")),
          type("java.util.List<Double>", List.of(0.1, 1e300)),
          type("java.util.List<java.time.Instant>", List.of(Instant.ofEpochSecond(1_700_000_000L))),
          type("java.util.Map<String, Integer>", Map.of("a", 1, "b", 200)),
          type("java.util.Map<String, Long>", Map.of("a", 5_000_000_000L)),
          type("java.util.Map<Integer, String>", Map.of(1, "a", 200, "b")),
          type("java.util.Map<Long, String>", Map.of(5_000_000_000L, "x")),
          type("java.util.Map<String, String>", Map.of("1", "a")),
          type("java.util.Optional<Integer>", Optional.of(200)),
          type("java.util.Optional<String>", Optional.of("hello")),
          type("Object", 200, "hello"));

  /**
   * Changes that must read, writer to reader: the exact widenings and what differs only in
   * wrapping.
   */
  private static final List<List<String>> WIDENINGS =
      List.of(
          List.of("byte", "short"),
          List.of("byte", "int"),
          List.of("byte", "Long"),
          List.of("Byte", "long"),
          List.of("short", "int"),
          List.of("Short", "long"),
          List.of("int", "long"),
          List.of("Integer", "Long"),
          List.of("float", "double"),
          List.of("Float", "double"),
          List.of("byte", "double"),
          List.of("short", "Double"),
          List.of("int", "double"),
          List.of("byte", "float"),
          List.of("short", "float"),
          List.of("char", "String"),
          List.of("Character", "String"),
          List.of("int", "Integer"),
          List.of("Integer", "int"),
          List.of("long", "Long"),
          List.of("double", "Double"),
          List.of("boolean", "Boolean"),
          List.of("char", "Character"),
          List.of("java.util.Optional<Integer>", "int"),
          List.of("Integer", "java.util.Optional<Integer>"),
          List.of("java.util.Optional<String>", "String"),
          List.of("Color[RED, GREEN]", "Color[RED, GREEN, BLUE]"),
          List.of("Color[RED]", "Color[RED, GREEN]"),
          List.of("java.util.List<Integer>", "java.util.List<Long>"),
          List.of("int[]", "java.util.List<Integer>"),
          List.of("int[]", "long[]"),
          List.of("java.util.List<Integer>", "java.util.List<Double>"),
          List.of("java.util.Map<String, Integer>", "java.util.Map<String, Long>"),
          List.of("java.util.Map<Integer, String>", "java.util.Map<Long, String>"),
          List.of("int", "Object"),
          List.of("java.time.Instant", "Object"),
          List.of("Color[RED]", "Object"));

  /** The rows of issue 27's table, each read wrong as a hit before. */
  private static final List<List<String>> ISSUE_ROWS =
      List.of(
          List.of("int", "byte"),
          List.of("long", "int"),
          List.of("double", "float"),
          List.of("long", "java.time.Instant"),
          List.of("long", "java.time.Duration"));

  private static List<Class<?>> holders;
  private static Stowage writerProcess;
  private static Stowage readerProcess;

  @BeforeAll
  static void compileAndConnect(RedisServer redis) {
    redis.flushAll();
    holders = compileHolders();
    writerProcess = Stowage.builder().redis(redis.uri()).build();
    readerProcess = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterAll
  static void close() {
    writerProcess.close();
    readerProcess.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"default (compact msgpack)", "named msgpack"})
  void everyPairOfFieldTypesReadsExactlyOrIsRefusedNamingTheField(String codec) {
    List<Codec<Object>> codecs =
        holders.stream()
            .map(
                holder ->
                    codec.startsWith("named")
                        ? Codecs.msgpack(raw(holder))
                        : Codecs.defaultFor(raw(holder)))
            .toList();
    Set<List<String>> hits = new HashSet<>();
    List<String> wrong = new ArrayList<>();
    for (int w = 0; w < TYPES.size(); w++) {
      Codec.Evolving<Object> writer = (Codec.Evolving<Object>) codecs.get(w);
      for (int r = 0; r < TYPES.size(); r++) {
        Codec.Evolving<Object> reader = (Codec.Evolving<Object>) codecs.get(r);
        for (Object sample : samples(w)) {
          byte[] bytes = writer.encode(sample);
          Object read;
          try {
            read =
                writer.schema().equals(reader.schema())
                    ? reader.decode(bytes)
                    : reader.decode(bytes, 0, bytes.length, writer.schema());
          } catch (CodecException e) {
            if (!e.getMessage().contains("value.f")) {
              wrong.add(pair(w, r) + " refused without naming the field: " + e.getMessage());
            }
            continue;
          }
          hits.add(List.of(TYPES.get(w).label(), TYPES.get(r).label()));
          checkRead(w, r, sample, read, wrong);
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(hits).as("the exact widenings read").containsAll(WIDENINGS);
    assertThat(hits).as("the rows of issue 27").doesNotContainAnyElementsOf(ISSUE_ROWS);
    for (int t = 0; t < TYPES.size(); t++) {
      assertThat(hits)
          .as("every type reads its own values")
          .contains(List.of(TYPES.get(t).label(), TYPES.get(t).label()));
    }
  }

  @Test
  void throughRealCachesEveryPairReadsExactlyOrIsACountedMiss() {
    List<RedisCache<String, Object>> writers = new ArrayList<>();
    List<RedisCache<String, Object>> readers = new ArrayList<>();
    for (Class<?> holder : holders) {
      writers.add(cache(writerProcess, holder));
      readers.add(cache(readerProcess, holder));
    }
    for (int w = 0; w < TYPES.size(); w++) {
      Map<String, Object> values = new LinkedHashMap<>();
      for (int r = 0; r < TYPES.size(); r++) {
        List<Object> samples = samples(w);
        for (int i = 0; i < samples.size(); i++) {
          values.put(key(w, r, i), samples.get(i));
        }
      }
      writers.get(w).putAll(values);
    }

    Set<List<String>> hits = new HashSet<>();
    Set<List<String>> misses = new HashSet<>();
    List<String> wrong = new ArrayList<>();
    for (int r = 0; r < TYPES.size(); r++) {
      List<String> keys = new ArrayList<>();
      Map<String, Object> written = new HashMap<>();
      for (int w = 0; w < TYPES.size(); w++) {
        List<Object> samples = samples(w);
        for (int i = 0; i < samples.size(); i++) {
          keys.add(key(w, r, i));
          written.put(key(w, r, i), samples.get(i));
        }
      }
      RedisCache<String, Object> reader = readers.get(r);
      Map<String, Object> read = reader.getAll(keys);
      CacheStats stats = reader.stats();
      assertThat(stats.decodeFailures())
          .as("misses of %s, all decode failures", TYPES.get(r).label())
          .isEqualTo(keys.size() - read.size());
      assertThat(stats.hits()).isEqualTo(read.size());
      for (String key : keys) {
        int w = Integer.parseInt(key.substring(0, key.indexOf('>')));
        List<String> pair = List.of(TYPES.get(w).label(), TYPES.get(r).label());
        if (read.containsKey(key)) {
          hits.add(pair);
          checkRead(w, r, written.get(key), read.get(key), wrong);
        } else {
          misses.add(pair);
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(hits).as("the exact widenings read").containsAll(WIDENINGS);
    assertThat(misses).as("the rows of issue 27 are counted misses").containsAll(ISSUE_ROWS);
    assertThat(hits).doesNotContainAnyElementsOf(ISSUE_ROWS);
  }

  @Test
  void theIssuesRowsAreRefusedWithTheFieldAndBothTypesNamed() {
    Map<List<String>, Object> written =
        Map.of(
            List.of("int", "byte"),
            200,
            List.of("long", "int"),
            5_000_000_000L,
            List.of("double", "float"),
            1e300,
            List.of("long", "java.time.Instant"),
            1_700_000_000_123L,
            List.of("long", "java.time.Duration"),
            30_000L);
    for (List<String> row : ISSUE_ROWS) {
      int w = indexOf(row.get(0));
      int r = indexOf(row.get(1));
      Codec.Evolving<Object> writer =
          (Codec.Evolving<Object>) Codecs.defaultFor(raw(holders.get(w)));
      Codec.Evolving<Object> reader =
          (Codec.Evolving<Object>) Codecs.defaultFor(raw(holders.get(r)));
      byte[] bytes = writer.encode(holder(w, written.get(row)));
      assertThatThrownBy(() -> reader.decode(bytes, 0, bytes.length, writer.schema()))
          .isInstanceOf(CodecException.class)
          .hasMessageContaining(
              "value.f was written as " + row.get(0) + " and is read as " + row.get(1));
    }
  }

  // ------------------------------------------------------------------ checking a read

  private static void checkRead(
      int w, int r, Object writtenHolder, Object readHolder, List<String> wrong) {
    Object written = field(writtenHolder);
    Object read = field(readHolder);
    if (TYPES.get(r).label().equals("Object")) {
      // Read as Object, a value is whatever Jackson makes of it (a String for an Instant).
      if (read == null) {
        wrong.add(pair(w, r) + " read null for " + canonical(written));
      }
      return;
    }
    Object expected = canonical(written);
    Object actual = canonical(read);
    if (!expected.equals(actual)) {
      wrong.add(pair(w, r) + " wrote " + expected + " and read " + actual);
    }
  }

  /**
   * What a value means, independent of its Java type: numbers by their exact decimal value, text by
   * its string (a char is a string of one), enums by name, dates and times by their value, lists,
   * arrays and maps element by element.
   */
  @SuppressWarnings(
      "JavaUtilDate") // values of java.util.Date are among the types a field may change to
  static Object canonical(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Optional<?> optional) {
      return canonical(optional.orElse(null));
    }
    if (value instanceof Float || value instanceof Double) {
      double d = ((Number) value).doubleValue();
      return Double.isFinite(d)
          ? "number " + new BigDecimal(d).stripTrailingZeros().toPlainString()
          : "number " + d;
    }
    if (value instanceof Byte
        || value instanceof Short
        || value instanceof Integer
        || value instanceof Long) {
      return "number " + ((Number) value).longValue();
    }
    if (value instanceof BigInteger big) {
      return "number " + big;
    }
    if (value instanceof BigDecimal decimal) {
      return "number " + decimal.stripTrailingZeros().toPlainString();
    }
    if (value instanceof Character || value instanceof String) {
      return "text " + value;
    }
    if (value instanceof Enum<?> constant) {
      return "enum " + constant.name();
    }
    if (value instanceof byte[] bytes) {
      return "bytes " + Arrays.toString(bytes);
    }
    if (value.getClass().isArray()) {
      List<Object> elements = new ArrayList<>();
      for (int i = 0; i < Array.getLength(value); i++) {
        elements.add(canonical(Array.get(value, i)));
      }
      return elements;
    }
    if (value instanceof Collection<?> collection) {
      return collection.stream().map(FieldTypeEvolutionIntegrationTests::canonical).toList();
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> entries = new HashMap<>();
      map.forEach((k, v) -> entries.put(canonical(k), canonical(v)));
      return entries;
    }
    if (value instanceof Date date) {
      return "date " + date.getTime();
    }
    return value.getClass().getName() + " " + value;
  }

  // ------------------------------------------------------------------ the types

  /**
   * One field type: its Java source, the source of its enum when it has one, and sample values
   * (enum constants by name).
   */
  record FieldType(String source, String enumName, List<String> constants, List<Object> samples) {
    String label() {
      return enumName.isEmpty() ? source : enumName + constants;
    }
  }

  private static FieldType type(String source, Object... samples) {
    return new FieldType(source, "", List.of(), List.of(samples));
  }

  private static FieldType enumType(String name, List<String> constants, String... samples) {
    return new FieldType(name, name, constants, List.of((Object[]) samples));
  }

  private static int indexOf(String label) {
    for (int t = 0; t < TYPES.size(); t++) {
      if (TYPES.get(t).label().equals(label)) {
        return t;
      }
    }
    throw new IllegalArgumentException(label);
  }

  private static String pair(int w, int r) {
    return TYPES.get(w).label() + " -> " + TYPES.get(r).label();
  }

  private static String key(int w, int r, int sample) {
    return w + ">" + r + "#" + sample;
  }

  /** The writer's holders of its samples. */
  private static List<Object> samples(int w) {
    List<Object> made = new ArrayList<>();
    for (Object sample : TYPES.get(w).samples()) {
      made.add(holder(w, sample));
    }
    return made;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object holder(int t, Object sample) {
    Class<?> holder = holders.get(t);
    Object value = sample;
    if (!TYPES.get(t).enumName().isEmpty()) {
      Class<?> enumClass = holder.getRecordComponents()[0].getType();
      value = Enum.valueOf((Class) enumClass, (String) sample);
    }
    return RecordEvolutionIntegrationTests.make(holder, value);
  }

  private static Object field(Object holder) {
    return RecordEvolutionIntegrationTests.fields(holder).get(0);
  }

  /** Compiles {@code evo.v<n>.Holder} (and its enum) for every type, in one run of the compiler. */
  private static List<Class<?>> compileHolders() {
    try {
      Path root = Files.createTempDirectory("stowage-field-types");
      Path out = Files.createDirectories(root.resolve("classes"));
      List<String> args =
          new ArrayList<>(
              List.of(
                  "-d",
                  out.toString(),
                  "--release",
                  "17",
                  "-proc:none",
                  "-classpath",
                  System.getProperty("java.class.path")));
      for (int t = 0; t < TYPES.size(); t++) {
        FieldType type = TYPES.get(t);
        Path dir = Files.createDirectories(root.resolve("src/evo/v" + t));
        String pkg = "package evo.v" + t + ";\n";
        Path holder = dir.resolve("Holder.java");
        Files.writeString(holder, pkg + "public record Holder(" + type.source() + " f) {}\n");
        args.add(holder.toString());
        if (!type.enumName().isEmpty()) {
          Path constants = dir.resolve(type.enumName() + ".java");
          Files.writeString(
              constants,
              pkg
                  + "public enum "
                  + type.enumName()
                  + " { "
                  + String.join(", ", type.constants())
                  + " }\n");
          args.add(constants.toString());
        }
      }
      JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
      if (compiler == null) {
        throw new IllegalStateException(
            "this test needs a JDK, not a JRE: no system Java compiler");
      }
      if (compiler.run(null, null, null, args.toArray(String[]::new)) != 0) {
        throw new IllegalStateException("the holders did not compile");
      }
      List<Class<?>> loaded = new ArrayList<>();
      for (int t = 0; t < TYPES.size(); t++) {
        // A class loader per version, as in another process.
        ClassLoader version =
            new URLClassLoader(
                new URL[] {out.toUri().toURL()},
                FieldTypeEvolutionIntegrationTests.class.getClassLoader());
        loaded.add(Class.forName("evo.v" + t + ".Holder", true, version));
      }
      return loaded;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static RedisCache<String, Object> cache(Stowage process, Class<?> holder) {
    return process
        .cache("evo", (Class<Object>) holder)
        .encoding(Encoding.defaultFor((Class<Object>) holder).compression(Compression.standard()))
        .build();
  }

  @SuppressWarnings("unchecked")
  private static Class<Object> raw(Class<?> type) {
    return (Class<Object>) type;
  }
}
