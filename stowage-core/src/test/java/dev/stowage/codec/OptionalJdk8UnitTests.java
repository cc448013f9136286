package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code jackson-datatype-jdk8} is optional (it only adds {@code Optional} support): the json and
 * msgpack codecs work without it. Checked in a class loader holding this test's class path minus
 * that jar, where loading a class that merely mentions {@code Jdk8Module} in a method would fail.
 */
class OptionalJdk8UnitTests {
  @Test
  void theJacksonCodecsRoundTripWithoutJackson8OnTheClassPath() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("jackson-datatype-jdk8")) {
        urls.add(toUrl(entry));
      }
    }
    try (URLClassLoader loader =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      assertThat(loader.getResource("com/fasterxml/jackson/datatype/jdk8/Jdk8Module.class"))
          .isNull();
      Class<?> codecs = loader.loadClass("dev.stowage.codec.Codecs");
      Class<?> item = loader.loadClass("dev.stowage.samples.Item");
      Object value =
          loader
              .loadClass("dev.stowage.samples.Samples")
              .getMethod("item", long.class)
              .invoke(null, 7L);
      for (String factory : List.of("json", "msgpack", "msgpackCompact")) {
        Object codec = codecs.getMethod(factory, Class.class).invoke(null, item);
        Method encode = codec.getClass().getMethod("encode", Object.class);
        Method decode = codec.getClass().getMethod("decode", byte[].class);
        encode.setAccessible(true);
        decode.setAccessible(true);
        byte[] bytes = (byte[]) encode.invoke(codec, value);
        assertThat(decode.invoke(codec, (Object) bytes)).as(factory).isEqualTo(value);
      }
    }
  }

  private static URL toUrl(String entry) {
    try {
      return new File(entry).toURI().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalStateException(entry, e);
    }
  }
}
