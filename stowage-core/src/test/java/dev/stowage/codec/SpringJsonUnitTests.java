package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;

class SpringJsonUnitTests {
  private static final GenericJackson2JsonRedisSerializer SPRING_JSON =
      new GenericJackson2JsonRedisSerializer();

  public static final class Flags {
    static final AtomicBoolean LOADED_INITIALIZED = new AtomicBoolean();
  }

  /** A class whose static initializer says it ran. */
  public static final class Loaded {
    static {
      Flags.LOADED_INITIALIZED.set(true);
    }

    public int n = 1;
  }

  public static final class Holder {
    public String name;
    public Object payload;
  }

  @Test
  void aClassOffTheAllowlistIsNeverLoadedSoItsStaticInitializerNeverRuns() throws Exception {
    // the value is written from a copy of the classes in a class loader of its own, so that nothing
    // initializes this loader's Loaded before the codec reads it
    URL testClasses = SpringJsonUnitTests.class.getProtectionDomain().getCodeSource().getLocation();
    byte[] bytes;
    try (URLClassLoader writer =
        new URLClassLoader(new URL[] {testClasses}, ClassLoader.getPlatformClassLoader())) {
      Class<?> holder = writer.loadClass(Holder.class.getName());
      Object value = holder.getConstructor().newInstance();
      holder.getField("name").set(value, "h");
      holder
          .getField("payload")
          .set(value, writer.loadClass(Loaded.class.getName()).getConstructor().newInstance());
      bytes = SPRING_JSON.serialize(value);
    }
    assertThat(new String(bytes, StandardCharsets.UTF_8))
        .contains("\"@class\":\"dev.stowage.codec.SpringJsonUnitTests$Loaded\"");

    assertThatThrownBy(() -> Codecs.springJson(Holder.class).decode(bytes))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("dev.stowage.codec.SpringJsonUnitTests$Loaded");
    assertThat(Flags.LOADED_INITIALIZED).isFalse();

    Holder read = Codecs.springJson(Holder.class, Loaded.class.getName()).decode(bytes);
    assertThat(read.payload).isInstanceOf(Loaded.class);
    assertThat(Flags.LOADED_INITIALIZED).isTrue();
  }

  @Test
  void arraysAreJudgedByTheirElementClass() {
    Holder strings = new Holder();
    strings.name = "s";
    strings.payload = new String[] {"a", "b"};
    byte[] bytes = SPRING_JSON.serialize(strings);
    assertThat(new String(bytes, StandardCharsets.UTF_8))
        .contains("[\"[Ljava.lang.String;\",[\"a\",\"b\"]]");
    assertThat((String[]) Codecs.springJson(Holder.class).decode(bytes).payload)
        .containsExactly("a", "b");

    Holder numbers = new Holder();
    numbers.payload = new int[] {1, 2};
    assertThat(
            (int[]) Codecs.springJson(Holder.class).decode(SPRING_JSON.serialize(numbers)).payload)
        .containsExactly(1, 2);

    Holder holders = new Holder();
    holders.payload = new Holder[] {new Holder()};
    Codec<Holder> codec = Codecs.springJson(Holder.class);
    // Holder is the codec's own type, so an array of it is allowed
    assertThat((Holder[]) codec.decode(SPRING_JSON.serialize(holders)).payload).hasSize(1);
    Holder loaded = new Holder();
    loaded.payload = new Loaded[0];
    assertThatThrownBy(() -> codec.decode(SPRING_JSON.serialize(loaded)))
        .isInstanceOf(CodecException.class);
  }

  @Test
  void writesWhatSpringWrites() {
    Holder value = new Holder();
    value.name = "w";
    value.payload = List.of(1L, "x");
    assertThat(Codecs.springJson(Holder.class).encode(value))
        .isEqualTo(SPRING_JSON.serialize(value));
  }

  @Test
  void malformedPatternsAreRefusedAtOnce() {
    assertThatThrownBy(() -> Codecs.springJson(Holder.class, "*"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "spring-json codec: '*' is not an allowlist pattern; use a class name, 'com.example.*'"
                + " or 'com.example.**'");
    assertThatThrownBy(() -> Codecs.springJson(Holder.class, "com.*.Type"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'*' may only end one as '.*' or '.**'");
  }
}
