package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.spring.app.Book;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.cache.support.NullValue;

/** Values of caches without a type: the type first, and only allowed classes read back. */
class ClassNamingCodecUnitTests {
  private final ClassNamingCodec codec = codec("msgpack");

  private ClassNamingCodec codec(String codecName) {
    return new ClassNamingCodec(
        "books",
        codecName,
        new ClassAllowlist(List.of("dev.stowage.spring.app")),
        getClass().getClassLoader(),
        perType -> Encoding.of(perType).compression(Compression.none()).serializer());
  }

  private static String typeText(byte[] bytes) {
    int length = (bytes[1] & 0xff) << 8 | (bytes[2] & 0xff);
    return new String(bytes, 3, length, StandardCharsets.UTF_8);
  }

  @Test
  void valuesOfAllowedClassesAndNullRoundTrip() {
    for (Object value :
        List.of(new Book(7, "Emma"), "text", 42L, LocalDate.of(2024, 2, 29), NullValue.INSTANCE)) {
      assertThat(codec.decode(codec.encode(value))).isEqualTo(value);
    }
  }

  @Test
  void listsSetsAndMapsRecordTheTypeTheirElementsShare() {
    List<Book> books = List.of(new Book(1, "Emma"), new Book(2, "Persuasion"));
    byte[] list = codec.encode(books);
    assertThat(typeText(list)).isEqualTo("java.util.List<dev.stowage.spring.app.Book>");
    assertThat(codec.decode(list)).isEqualTo(books).isInstanceOf(ArrayList.class);

    Map<String, Book> byTitle = new TreeMap<>(Map.of("Emma", books.get(0)));
    byte[] map = codec.encode(byTitle);
    assertThat(typeText(map))
        .isEqualTo("java.util.TreeMap<java.lang.String, dev.stowage.spring.app.Book>");
    assertThat(codec.decode(map)).isEqualTo(byTitle).isInstanceOf(TreeMap.class);

    Map<Long, List<Book>> nested = new LinkedHashMap<>(Map.of(1L, books));
    assertThat(codec.decode(codec.encode(nested))).isEqualTo(nested);
    assertThat(codec.decode(codec.encode(Set.of(books.get(1))))).isEqualTo(Set.of(books.get(1)));
    assertThat(codec.decode(codec.encode(List.of()))).isEqualTo(List.of());
    assertThat(codec.decode(codec.encode(new Book[] {books.get(0)})))
        .isEqualTo(new Book[] {books.get(0)});
  }

  @Test
  void aValueWhoseTypeCannotBeToldFromItIsRefusedNamingTheSettingToAdd() {
    List<Object> mixed = List.of(new Book(1, "Emma"), "text");
    assertThat(codec.refusal(mixed))
        .contains(
            "its elements are of different types (dev.stowage.spring.app.Book,"
                + " java.lang.String)")
        .contains("stowage.caches.books.type=java.util.List<");
    assertThatThrownBy(() -> codec.encode(mixed))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("stowage.caches.books.type=");
    assertThat(codec.refusal(new ArrayDeque<>(List.of(new Book(1, "a")))))
        .contains("neither a list nor a set");
    assertThat(codec.refusal(List.of(new Book(1, "a")))).isNull();
    assertThat(codec("kryo").refusal(List.of(new Book(1, "a"))))
        .contains("codec kryo takes a class, not" + " java.util.List<dev.stowage.spring.app.Book>");
  }

  @Test
  void aValueNamingAClassOutsideTheAllowlistIsRefusedUnloaded() {
    byte[] book = codec.encode(new Book(7, "Emma"));
    String forged = "dev.stowage.spring.apps.Boo";
    assertThat(forged.length()).isEqualTo(Book.class.getName().length());
    byte[] bytes = book.clone();
    System.arraycopy(forged.getBytes(StandardCharsets.UTF_8), 0, bytes, 3, forged.length());

    assertThatThrownBy(() -> codec.decode(bytes))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("the value names dev.stowage.spring.apps.Boo, which cannot be read")
        .hasMessageContaining("dev.stowage.spring.apps.Boo, which is not allowed");
    byte[] list = codec.encode(List.of(new Book(7, "Emma")));
    String forgedList = "java.util.List<dev.stowage.spring.apps.Boo>";
    byte[] forgedBytes = list.clone();
    System.arraycopy(
        forgedList.getBytes(StandardCharsets.UTF_8), 0, forgedBytes, 3, forgedList.length());
    assertThatThrownBy(() -> codec.decode(forgedBytes))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("dev.stowage.spring.apps.Boo, which is not allowed");
  }

  @Test
  void aValueOfTheEarlierFormatWithoutAShapeIsAMiss() {
    byte[] name = Book.class.getName().getBytes(StandardCharsets.UTF_8);
    byte[] payload = Codecs.msgpack(Book.class).encode(new Book(7, "Emma"));
    byte[] old = new byte[3 + name.length + payload.length];
    old[0] = ClassNamingCodec.VALUE_TAG;
    old[2] = (byte) name.length;
    System.arraycopy(name, 0, old, 3, name.length);
    System.arraycopy(payload, 0, old, 3 + name.length, payload.length);

    assertThatThrownBy(() -> codec.decode(old))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(
            "a value of dev.stowage.spring.app.Book written by an earlier stowage-spring without"
                + " the fingerprint of its class's shape");
  }

  @Test
  // The value must be a StringBuilder (a class outside the allowlist), not the string it holds.
  @SuppressWarnings("UnnecessaryStringBuilder")
  void classesOutsideTheAllowlistAreRefusedWhenWritten() {
    assertThatThrownBy(() -> codec.encode(new StringBuilder("x")))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("java.lang.StringBuilder is outside")
        .hasMessageContaining("stowage.allowed-packages");
    assertThat(codec.refusal(List.of(new StringBuilder("x"))))
        .contains("java.lang.StringBuilder, outside");
  }

  @Test
  void packageNamesAreWholeSegments() {
    ClassAllowlist allowlist = new ClassAllowlist(List.of("com.example"));
    assertThat(allowlist.permits("com.example.Book")).isTrue();
    assertThat(allowlist.permits("com.example.shop.Order")).isTrue();
    assertThat(allowlist.permits("com.examples.Book")).isFalse();
    assertThat(allowlist.permits("java.lang.ProcessBuilder")).isFalse();
    assertThatThrownBy(() -> new ClassAllowlist(List.of("com.*")))
        .hasMessageContaining("stowage.allowed-packages");
  }
}
