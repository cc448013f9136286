package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Codec;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.msgpack.jackson.dataformat.MessagePackMapper;

/**
 * The JSON-shaped codecs never let the bytes choose a class: a type id ({@code "@class"}, {@code
 * "@type"}, or Jackson's default-typing array) in a value is data, or an error, and the class it
 * names is never created. The payload names {@link Gadget}, whose constructor would record its
 * creation.
 */
class PolymorphicTypingUnitTests {
  /**
   * A value with a field of declared type Object, where a type id would matter if anything read it.
   */
  public record Holder(String name, Object payload) {}

  /** Counts its creations. */
  public static final class Gadget {
    static int created;

    public Gadget() {
      created++;
    }

    public String getCommand() {
      return "none";
    }

    public void setCommand(String command) {
      // a gadget would act on this
    }
  }

  private static final String GADGET = Gadget.class.getName();

  @Test
  void jacksonJsonReadsATypeIdAsPlainData() {
    Gadget.created = 0;
    Codec<Holder> json = Codecs.json(Holder.class);
    Holder read =
        json.decode(
            utf8(
                "{\"name\":\"x\",\"payload\":{\"@class\":\"" + GADGET + "\",\"command\":\"rm\"}}"));
    assertThat(read.payload())
        .isInstanceOf(Map.class)
        .isEqualTo(Map.of("@class", GADGET, "command", "rm"));
    Holder wrapped =
        json.decode(utf8("{\"name\":\"x\",\"payload\":[\"" + GADGET + "\",{\"command\":\"rm\"}]}"));
    assertThat(wrapped.payload()).isInstanceOf(List.class);
    assertThat(Gadget.created).isZero();
  }

  @Test
  void messagePackReadsATypeIdAsPlainData() throws Exception {
    Gadget.created = 0;
    byte[] bytes =
        new MessagePackMapper()
            .writeValueAsBytes(
                Map.of("name", "x", "payload", Map.of("@class", GADGET, "command", "rm")));
    Holder read = Codecs.msgpack(Holder.class).decode(bytes);
    assertThat(read.payload()).isInstanceOf(Map.class);
    assertThat(Gadget.created).isZero();
  }

  /**
   * As its Javadoc says: an "@type" is skipped at the top, kept as data below, and the class is
   * never created.
   */
  @Test
  void fastjson2IgnoresAutoTypeAndNeverCreatesTheClassItNames() {
    Gadget.created = 0;
    Codec<Holder> fastjson = Codecs.fastjson2(Holder.class);
    Holder nested =
        fastjson.decode(
            utf8("{\"name\":\"x\",\"payload\":{\"@type\":\"" + GADGET + "\",\"command\":\"rm\"}}"));
    assertThat(nested.name()).isEqualTo("x");
    assertThat(nested.payload())
        .isInstanceOf(Map.class)
        .isEqualTo(Map.of("@type", GADGET, "command", "rm"));

    Holder topLevel =
        fastjson.decode(utf8("{\"@type\":\"" + GADGET + "\",\"name\":\"n\",\"command\":\"rm\"}"));
    assertThat(topLevel).isEqualTo(new Holder("n", null));

    Holder jdkClass =
        fastjson.decode(
            utf8("{\"name\":\"y\",\"payload\":{\"@type\":\"java.net.URL\",\"val\":\"http://h\"}}"));
    assertThat(jdkClass.payload()).isInstanceOf(Map.class).isNotInstanceOf(URL.class);
    assertThat(Gadget.created).isZero();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
