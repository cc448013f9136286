package dev.stowage.evolution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CacheStats;
import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.Feed.Entry;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.ClassVersions;
import dev.stowage.testkit.WithRedis;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A record changes between two deploys: one process writes with the old class, another reads with
 * the new one (and back, as in a rolling deploy). Each version is compiled at test time and loaded
 * by its own class loader, and each process has its own {@link Stowage}, so the reader finds the
 * writer's schema in Redis, not in its own memory. A change that can be read is read correctly; one
 * that cannot is a counted miss, never a wrong value.
 */
@WithRedis
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class RecordEvolutionIntegrationTests {
  private static final String V1 =
      "public record Product(long id, String name, double price, String color) {}";

  private Stowage writerProcess;
  private Stowage readerProcess;

  @BeforeEach
  void connect(RedisServer redis) {
    redis.flushAll();
    writerProcess = Stowage.builder().redis(redis.uri()).build();
    readerProcess = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterEach
  void close() {
    writerProcess.close();
    readerProcess.close();
  }

  // ------------------------------------------------------------------ the default codec

  @Test
  void aFieldAddedAtTheEndTakesItsDefault() {
    Object read =
        roundTrip(
            V1,
            "public record Product(long id, String name, double price, String color, int stock) {}",
            1L,
            "Widget",
            9.5,
            "red");
    assertThat(fields(read)).containsExactly(1L, "Widget", 9.5, "red", 0);
  }

  @Test
  void aFieldAddedInTheMiddleTakesItsDefault() {
    Object read =
        roundTrip(
            V1,
            "public record Product(long id, String sku, String name, double price, String color) {}",
            1L,
            "Widget",
            9.5,
            "red");
    assertThat(fields(read)).containsExactly(1L, null, "Widget", 9.5, "red");
  }

  @Test
  void aFieldRemovedFromTheMiddleIsSkipped() {
    Object read =
        roundTrip(
            V1,
            "public record Product(long id, double price, String color) {}",
            1L,
            "Widget",
            9.5,
            "red");
    assertThat(fields(read)).containsExactly(1L, 9.5, "red");
  }

  @Test
  void aFieldRemovedAtTheEndIsSkipped() {
    Object read =
        roundTrip(
            V1,
            "public record Product(long id, String name, double price) {}",
            1L,
            "Widget",
            9.5,
            "red");
    assertThat(fields(read)).containsExactly(1L, "Widget", 9.5);
  }

  @Test
  void swappedFieldsOfOneTypeKeepTheirValues() {
    // Read by position, this gave color=Widget, name=red, counted as a hit.
    Object read =
        roundTrip(
            V1,
            "public record Product(long id, String color, double price, String name) {}",
            1L,
            "Widget",
            9.5,
            "red");
    assertThat(fields(read)).containsExactly(1L, "red", 9.5, "Widget");
  }

  @Test
  void aMiddleNameRemovedDoesNotBecomeTheLastName() {
    // Read by position, P2 got the middle name as its last name.
    Object read =
        roundTrip(
            "public record Person(long id, String first, String middle, String last) {}",
            "public record Person(long id, String first, String last) {}",
            7L,
            "Ada",
            "Augusta",
            "King");
    assertThat(fields(read)).containsExactly(7L, "Ada", "King");
  }

  @Test
  void aFieldWidenedFromIntToDoubleReads() {
    Object read =
        roundTrip(
            "public record Product(long id, int price) {}",
            "public record Product(long id, double price) {}",
            1L,
            12);
    assertThat(fields(read)).containsExactly(1L, 12.0);
  }

  @Test
  void anIncompatibleTypeChangeIsACountedMiss() {
    assertCountedMiss(
        V1,
        "public record Product(long id, String name, java.util.List<String> price, String color) {}",
        1L,
        "Widget",
        9.5,
        "red");
  }

  @Test
  void aRenameWithoutAnAliasIsACountedMiss() {
    assertCountedMiss(
        V1,
        "public record Product(long id, String name, double price, String colour) {}",
        1L,
        "Widget",
        9.5,
        "red");
  }

  @Test
  void aRenameWithAnAliasReads() {
    Object read =
        roundTrip(
            V1,
            "public record Product(long id, String name, double price,"
                + " @com.fasterxml.jackson.annotation.JsonAlias(\"color\") String colour) {}",
            1L,
            "Widget",
            9.5,
            "red");
    assertThat(fields(read)).containsExactly(1L, "Widget", 9.5, "red");
  }

  @Test
  void theOldReaderOfARollingDeployReadsTheNewValues() {
    // The new version writes; a process still on the old version reads.
    Object read =
        roundTrip(
            "public record Product(long id, String sku, String color, double price, String name) {}",
            V1,
            1L,
            "W-1",
            "red",
            9.5,
            "Widget");
    assertThat(fields(read)).containsExactly(1L, "Widget", 9.5, "red");
  }

  @Test
  void nestedRecordsAndCollectionsOfRecordsResolveByName() {
    Map<String, String> before =
        Map.of(
            "Line", "public record Line(String sku, int quantity, double unitPrice) {}",
            "Order",
                "public record Order(long id, Line first, java.util.List<Line> lines, java.util.Map<String, Line> bySku) {}");
    Map<String, String> after =
        Map.of(
            "Line",
                "public record Line(double unitPrice, String note, String sku, int quantity) {}",
            "Order",
                "public record Order(java.util.Map<String, Line> bySku, java.util.List<Line> lines, long id, Line first) {}");
    ClassLoader old = ClassVersions.compile(before);
    ClassLoader current = ClassVersions.compile(after);
    Class<?> oldLine = ClassVersions.load(old, "Line");
    Object a = make(oldLine, "A", 2, 1.5);
    Object b = make(oldLine, "B", 3, 2.5);
    Map<String, Object> bySku = new LinkedHashMap<>();
    bySku.put("A", a);
    bySku.put("B", b);
    Object order = make(ClassVersions.load(old, "Order"), 9L, a, List.of(a, b), bySku);

    Object read =
        writeThenRead(
            ClassVersions.load(old, "Order"),
            ClassVersions.load(current, "Order"),
            order,
            type -> null);

    List<Object> orderFields = fields(read);
    assertThat(orderFields.get(2)).isEqualTo(9L);
    assertThat(fields(orderFields.get(3))).containsExactly(1.5, null, "A", 2);
    assertThat(
            ((List<?>) orderFields.get(1))
                .stream().map(RecordEvolutionIntegrationTests::fields).toList())
        .containsExactly(Arrays.asList(1.5, null, "A", 2), Arrays.asList(2.5, null, "B", 3));
    Map<?, ?> readBySku = (Map<?, ?>) orderFields.get(0);
    assertThat(fields(readBySku.get("B"))).containsExactly(2.5, null, "B", 3);
  }

  @Test
  void anUnchangedClassInAnotherLoaderReadsOnTheFastPath() {
    Object read = roundTrip(V1, V1, 1L, "Widget", 9.5, "red");
    assertThat(fields(read)).containsExactly(1L, "Widget", 9.5, "red");
  }

  @Test
  void compressedValuesResolveToo() {
    Class<?> before = product(V1);
    Object read =
        writeThenRead(
            before,
            product("public record Product(String color, long id, String name, double price) {}"),
            make(before, 1L, "W".repeat(2000), 9.5, "red"),
            type -> null);
    assertThat(fields(read)).containsExactly("red", 1L, "W".repeat(2000), 9.5);
  }

  @Test
  @SuppressWarnings("unchecked")
  void aFeedReadsEntriesWrittenWithAnOlderShape() {
    Class<?> before = product(V1);
    Class<?> after = product("public record Product(String color, long id, double price) {}");
    // Not "products": the caches' prefix products: of the same Stowages covers its buckets
    // products:b:*.
    Feed<Object> writer = writerProcess.feed("product-feed", (Class<Object>) before).build();
    Feed<Object> reader = readerProcess.feed("product-feed", (Class<Object>) after).build();
    writer.add(make(before, 1L, "Widget", 9.5, "red"));
    writer.add(make(before, 2L, "Gadget", 3.0, "blue"));

    List<Object> page = reader.page(1, 10).stream().map(Entry::value).toList();
    List<Object> asyncPage = reader.async().page(1, 10).join().stream().map(Entry::value).toList();

    assertThat(page)
        .extracting(RecordEvolutionIntegrationTests::fields)
        .containsExactly(List.of("blue", 2L, 3.0), List.of("red", 1L, 9.5));
    assertThat(asyncPage).isEqualTo(page);
  }

  // ------------------------------------------------------------------ positional codecs that
  // cannot resolve

  @ParameterizedTest
  @ValueSource(strings = {"kryo", "fory"})
  void aPositionalCodecThatCannotResolveRefusesAChangedClassAsACountedMiss(String codec) {
    Class<?> before = product(V1);
    Class<?> after =
        product("public record Product(long id, String color, double price, String name) {}");
    RedisCache<String, Object> writer =
        cache(writerProcess, before, Codecs.forName(codec, raw(before)));
    RedisCache<String, Object> reader =
        cache(readerProcess, after, Codecs.forName(codec, raw(after)));
    writer.put("p", make(before, 1L, "Widget", 9.5, "red"));

    assertThat(reader.get("p")).isNull();
    assertThat(reader.stats().decodeFailures()).isEqualTo(1);
  }

  @Test
  void kryoReadsAnUnchangedClass() {
    Class<?> before = product(V1);
    Class<?> again = product(V1);
    RedisCache<String, Object> writer = cache(writerProcess, before, Codecs.kryo(raw(before)));
    RedisCache<String, Object> reader = cache(readerProcess, again, Codecs.kryo(raw(again)));
    writer.put("p", make(before, 1L, "Widget", 9.5, "red"));

    assertThat(fields(reader.get("p"))).containsExactly(1L, "Widget", 9.5, "red");
  }

  // ------------------------------------------------------------------ helpers

  private Object roundTrip(String oldSource, String newSource, Object... oldValues) {
    Class<?> before = product(oldSource);
    Class<?> after = product(newSource);
    return writeThenRead(before, after, make(before, oldValues), type -> null);
  }

  private void assertCountedMiss(String oldSource, String newSource, Object... oldValues) {
    Class<?> before = product(oldSource);
    Class<?> after = product(newSource);
    RedisCache<String, Object> writer = cache(writerProcess, before, null);
    RedisCache<String, Object> reader = cache(readerProcess, after, null);
    writer.put("p", make(before, oldValues));

    assertThat(reader.get("p")).isNull();
    assertThat(reader.getAll(List.of("p"))).isEmpty();
    CacheStats stats = reader.stats();
    assertThat(stats.decodeFailures()).isEqualTo(2);
    assertThat(stats.hits()).isZero();
    // The writer's own version still reads it.
    assertThat(fields(writer.get("p"))).containsExactly(oldValues);
  }

  private Object writeThenRead(
      Class<?> before, Class<?> after, Object value, Function<Class<?>, Codec<Object>> codec) {
    RedisCache<String, Object> writer = cache(writerProcess, before, codec.apply(before));
    RedisCache<String, Object> reader = cache(readerProcess, after, codec.apply(after));
    writer.put("p", value);
    Object read = reader.get("p");
    assertThat(read).as("read with the new class").isNotNull();
    assertThat(read.getClass()).isSameAs(after);
    assertThat(reader.stats().hits()).isEqualTo(1);
    assertThat(reader.getAll(List.of("p"))).hasSize(1);
    assertThat(reader.async().get("p").join()).isEqualTo(read);
    return read;
  }

  @SuppressWarnings("unchecked")
  private static RedisCache<String, Object> cache(Stowage process, Class<?> type, Codec<?> codec) {
    Encoding<Object> encoding =
        codec != null
            ? Encoding.of((Codec<Object>) codec)
            : Encoding.defaultFor((Class<Object>) type);
    return process
        .cache("products", (Class<Object>) type)
        .encoding(encoding.compression(Compression.standard()))
        .build();
  }

  @SuppressWarnings("unchecked")
  private static Class<Object> raw(Class<?> type) {
    return (Class<Object>) type;
  }

  /** Compiles one version of a single record, whatever its name, in a class loader of its own. */
  private static Class<?> product(String source) {
    Matcher name = Pattern.compile("record (\\w+)").matcher(source);
    if (!name.find()) {
      throw new IllegalArgumentException("no record in " + source);
    }
    return ClassVersions.load(ClassVersions.compile(Map.of(name.group(1), source)), name.group(1));
  }

  static Object make(Class<?> type, Object... values) {
    try {
      Class<?>[] types =
          Arrays.stream(type.getRecordComponents())
              .map(RecordComponent::getType)
              .toArray(Class<?>[]::new);
      Constructor<?> constructor = type.getDeclaredConstructor(types);
      return constructor.newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  static List<Object> fields(Object record) {
    try {
      List<Object> values = new ArrayList<>();
      for (RecordComponent component : record.getClass().getRecordComponents()) {
        values.add(component.getAccessor().invoke(record));
      }
      return values;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
