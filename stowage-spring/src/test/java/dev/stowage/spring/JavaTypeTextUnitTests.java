package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.TypeRef;
import dev.stowage.spring.app.Book;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Java types as text, as the {@code type} setting and values without a type name them. */
class JavaTypeTextUnitTests {
  private static Type parse(String text) {
    return JavaTypeText.parse(text, JavaTypeTextUnitTests.class.getClassLoader(), name -> true);
  }

  @Test
  void typesWithGenericsAreTheTypesTheCompilerRecords() {
    assertThat(parse("dev.stowage.spring.app.Book")).isEqualTo(Book.class);
    assertThat(parse(" java.util.List< dev.stowage.spring.app.Book > "))
        .isEqualTo(new TypeRef<List<Book>>() {}.type());
    assertThat(parse("java.util.Map<String,dev.stowage.spring.app.Book>"))
        .isEqualTo(new TypeRef<Map<String, Book>>() {}.type());
    assertThat(new TypeRef<Map<String, List<Book>>>() {}.type())
        .isEqualTo(
            parse("java.util.Map<java.lang.String, java.util.List<dev.stowage.spring.app.Book>>"));
    assertThat(parse("byte[]")).isEqualTo(byte[].class);
    assertThat(parse("dev.stowage.spring.app.Book[][]")).isEqualTo(Book[][].class);
    assertThat(parse("java.util.Map.Entry<String, Long>").getTypeName())
        .isEqualTo("java.util.Map$Entry<java.lang.String, java.lang.Long>");
    for (String text :
        List.of(
            "java.util.Map<java.lang.String, java.util.List<dev.stowage.spring.app.Book>>",
            "dev.stowage.spring.app.Book[]",
            "int[]")) {
      assertThat(JavaTypeText.of(parse(text))).isEqualTo(text);
    }
  }

  @Test
  void malformedAndUnknownTypesAreRefusedSayingWhy() {
    assertThatThrownBy(() -> parse("java.util.List<com.example.Missing>"))
        .hasMessage(
            "class com.example.Missing not found (at 15 in 'java.util.List<com.example.Missing>')");
    assertThatThrownBy(() -> parse("java.util.List"))
        .hasMessageStartingWith(
            "java.util.List needs its type argument(s), or its elements are read as maps: such as"
                + " java.util.List<com.example.Book>");
    assertThatThrownBy(() -> parse("java.util.List<String")).hasMessageContaining("'>' expected");
    assertThatThrownBy(() -> parse("java.util.List<?>")).hasMessageContaining("a wildcard (?)");
    assertThatThrownBy(() -> parse("java.util.Map<String>"))
        .hasMessageStartingWith("java.util.Map takes 2 type argument(s), not 1");
    assertThatThrownBy(() -> parse("int"))
        .hasMessageContaining("a primitive type (int) outside an array");
    assertThatThrownBy(
            () ->
                JavaTypeText.parse(
                    "java.util.List<java.lang.ProcessBuilder>",
                    getClass().getClassLoader(),
                    name -> !name.contains("Process")))
        .hasMessageContaining("java.lang.ProcessBuilder, which is not allowed");
  }
}
