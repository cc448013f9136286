package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CodecException;
import dev.stowage.spring.app.Book;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.cache.support.NullValue;

/** Values of caches without a type: the class name first, and only allowed classes read back. */
class ClassNamingCodecUnitTests {
  private final ClassNamingCodec codec = new ClassNamingCodec("books", "msgpack",
      new ClassAllowlist(List.of("dev.stowage.spring.app")), getClass().getClassLoader());

  @Test
  void valuesOfAllowedClassesAndNullRoundTrip() {
    for (Object value : List.of(new Book(7, "Emma"), "text", 42L, LocalDate.of(2024, 2, 29), NullValue.INSTANCE)) {
      assertThat(codec.decode(codec.encode(value))).isEqualTo(value);
    }
  }

  @Test
  void aValueNamingAClassOutsideTheAllowlistIsRefusedUnloaded() {
    byte[] book = codec.encode(new Book(7, "Emma"));
    String forged = "dev.stowage.spring.apps.Boo";
    assertThat(forged.length()).isEqualTo(Book.class.getName().length());
    byte[] bytes = book.clone();
    System.arraycopy(forged.getBytes(StandardCharsets.UTF_8), 0, bytes, 3, forged.length());

    assertThatThrownBy(() -> codec.decode(bytes)).isInstanceOf(CodecException.class)
        .hasMessageContaining("the value names dev.stowage.spring.apps.Boo, outside the packages [dev.stowage.spring.app]");
  }

  @Test
  void classesOutsideTheAllowlistAndCollectionsAreRefusedWhenWritten() {
    assertThatThrownBy(() -> codec.encode(new StringBuilder("x"))).isInstanceOf(CodecException.class)
        .hasMessageContaining("java.lang.StringBuilder is outside").hasMessageContaining("stowage.allowed-packages");
    assertThatThrownBy(() -> codec.encode(List.of(new Book(1, "a")))).isInstanceOf(CodecException.class)
        .hasMessageContaining("stowage.caches.books.type");
  }

  @Test
  void packageNamesAreWholeSegments() {
    ClassAllowlist allowlist = new ClassAllowlist(List.of("com.example"));
    assertThat(allowlist.permits("com.example.Book")).isTrue();
    assertThat(allowlist.permits("com.example.shop.Order")).isTrue();
    assertThat(allowlist.permits("com.examples.Book")).isFalse();
    assertThat(allowlist.permits("java.lang.ProcessBuilder")).isFalse();
    assertThatThrownBy(() -> new ClassAllowlist(List.of("com.*"))).hasMessageContaining("stowage.allowed-packages");
  }
}
