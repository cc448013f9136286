package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.codec.Shapes.Circle;
import dev.stowage.codec.Shapes.Drawing;
import dev.stowage.codec.Shapes.Square;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class JdkAllowlistUnitTests {
  /** Set when a Gadget's readObject runs, which the allowlist must prevent. */
  static final AtomicBoolean GADGET_RAN = new AtomicBoolean();

  /** A class that runs code while it is deserialized, as gadget chains do. */
  static final class Gadget implements Serializable {
    private static final long serialVersionUID = 1L;
    String command = "touch /tmp/pwned";

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      GADGET_RAN.set(true);
    }
  }

  @Test
  void aClassOutsideTheAllowlistIsRejectedBeforeItRuns() {
    @SuppressWarnings("rawtypes")
    Codec<HashMap> maps = Codecs.jdk(HashMap.class);
    HashMap<String, Object> plain = new HashMap<>();
    plain.put("title", "안녕하세요");
    plain.put("count", 3L);
    CodecRoundTrip.assertRoundTrip(maps, plain);

    HashMap<String, Object> withGadget = new HashMap<>(plain);
    withGadget.put("payload", new Gadget());
    byte[] hostile = serialize(withGadget);
    GADGET_RAN.set(false);
    assertThatThrownBy(() -> maps.decode(hostile))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("class " + Gadget.class.getName() + " is not in its allowlist");
    assertThat(GADGET_RAN).isFalse();
  }

  @Test
  void anotherRootClassIsRejected() {
    Codec<Post> posts = Codecs.jdk(Post.class);
    byte[] gadget = serialize(new Gadget());
    assertThatThrownBy(() -> posts.decode(gadget))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(Gadget.class.getName());
    assertThat(GADGET_RAN).isFalse();
  }

  @Test
  void implementationsOfAnInterfaceFieldNeedAPattern() {
    Drawing circle = new Drawing("circle", new Circle(1));
    Codec<Drawing> bare = Codecs.jdk(Drawing.class);
    byte[] bytes = bare.encode(circle);
    assertThatThrownBy(() -> bare.decode(bytes))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(Circle.class.getName());

    Codec<Drawing> oneClass = Codecs.jdk(Drawing.class, Circle.class.getName());
    CodecRoundTrip.assertRoundTrip(oneClass, circle);
    byte[] square = bare.encode(new Drawing("square", new Square(2)));
    assertThatThrownBy(() -> oneClass.decode(square))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(Square.class.getName());

    Codec<Drawing> wholePackage = Codecs.jdk(Drawing.class, "dev.stowage.codec.*");
    assertThat(wholePackage.decode(square)).isEqualTo(new Drawing("square", new Square(2)));
    Codec<Drawing> packageTree = Codecs.jdk(Drawing.class, "dev.stowage.**");
    assertThat(packageTree.decode(square)).isEqualTo(new Drawing("square", new Square(2)));
    Codec<Drawing> otherTree =
        Codecs.jdk(Drawing.class, "dev.stowage.codec.sub.**", "dev.stowag.*");
    assertThatThrownBy(() -> otherTree.decode(square)).isInstanceOf(CodecException.class);
  }

  @Test
  void malformedPatternsAreRefused() {
    assertThatThrownBy(() -> Codecs.jdk(Post.class, "*"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Codecs.jdk(Post.class, "**"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Codecs.jdk(Post.class, "com.*.Foo"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Codecs.jdk(Post.class, " "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Codecs.jdk(Object.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Serializable");
  }

  @Test
  void tooDeepAValueIsRejected() {
    @SuppressWarnings("rawtypes")
    Codec<ArrayList> lists = Codecs.jdk(ArrayList.class);
    ArrayList<Object> root = new ArrayList<>();
    ArrayList<Object> current = root;
    for (int i = 0; i < 100; i++) {
      ArrayList<Object> next = new ArrayList<>();
      current.add(next);
      current = next;
    }
    byte[] deep = lists.encode(root);
    assertThatThrownBy(() -> lists.decode(deep))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("nesting depth");
  }

  @Test
  void aHugeArrayLengthIsRejectedBeforeAllocation() {
    @SuppressWarnings("ArrayRecordComponent") // never compared: it carries the array to encode
    record Holder(int[] values) implements Serializable {}
    Codec<Holder> holders = Codecs.jdk(Holder.class);
    byte[] bytes = holders.encode(new Holder(new int[] {0x51515151, 0x51515151}));
    // The array's length (an int, big-endian) comes right before its first element.
    int first = indexOf(bytes, new byte[] {0, 0, 0, 2, 0x51, 0x51, 0x51, 0x51});
    bytes[first] = 0x7f;
    bytes[first + 1] = (byte) 0xff;
    assertThatThrownBy(() -> holders.decode(bytes))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("an array of " + 0x7fff0002 + " elements");
  }

  @Test
  void listsOfTheJdkRoundTrip() {
    @SuppressWarnings("rawtypes")
    Codec<List> lists = Codecs.jdk(List.class);
    CodecRoundTrip.assertRoundTrip(
        lists,
        List.of(
            "a",
            1L,
            LocalDate.of(2024, 2, 29),
            new BigDecimal("1.10"),
            UUID.fromString("0f7a7b4c-5d0e-4b8a-9a55-1d2c3e4f5a6b")));
  }

  private static byte[] serialize(Object value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return bytes.toByteArray();
  }

  private static int indexOf(byte[] data, byte[] part) {
    outer:
    for (int i = 0; i <= data.length - part.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (data[i + j] != part[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
