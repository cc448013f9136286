package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.codec.Shapes.Circle;
import dev.stowage.codec.Shapes.Drawing;
import dev.stowage.codec.Shapes.Square;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class KryoSecurityUnitTests {
  private final Codec<Drawing> codec = Codecs.kryo(Drawing.class, Circle.class);

  @Test
  void registeredImplementationsRoundTrip() {
    CodecRoundTrip.assertRoundTrip(codec, new Drawing("circle", new Circle(2.5)));
    CodecRoundTrip.assertRoundTrip(codec, new Drawing("empty", null));
  }

  @Test
  void encodingAnUnregisteredClassFails() {
    assertThatThrownBy(() -> codec.encode(new Drawing("square", new Square(1))))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("kryo codec could not encode a " + Drawing.class.getName())
        .hasMessageContaining(Square.class.getName());
    CodecRoundTrip.assertRoundTrip(codec, new Drawing("circle", new Circle(2.5)));
  }

  @Test
  void bytesNamingAnUnregisteredClassAreRejected() {
    // A permissive Kryo writes the unregistered class by name, as an attacker's bytes would.
    Kryo permissive = new Kryo();
    permissive.setRegistrationRequired(false);
    permissive.setReferences(false);
    Output output = new Output(256, -1);
    permissive.writeClassAndObject(output, new Square(3));
    byte[] root = output.toBytes();
    assertThatThrownBy(() -> codec.decode(root))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("kryo codec could not decode")
        .hasMessageContaining(Square.class.getName());

    // The same, inside a registered class: the same ids as the codec, and a Square by name in the
    // field.
    permissive.register(Drawing.class, 100);
    permissive.register(Circle.class, 101);
    output.reset();
    permissive.writeClassAndObject(output, new Drawing("nested", new Square(4)));
    byte[] nested = output.toBytes();
    assertThat(codec.decode(permissiveDrawingWithCircle(permissive)))
        .isEqualTo(new Drawing("ok", new Circle(1)));
    assertThatThrownBy(() -> codec.decode(nested))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(Square.class.getName());
  }

  private static byte[] permissiveDrawingWithCircle(Kryo permissive) {
    Output output = new Output(256, -1);
    permissive.writeClassAndObject(output, new Drawing("ok", new Circle(1)));
    return output.toBytes();
  }

  /**
   * Kryo's own reader loads a class named in the bytes (searching the whole class path when there
   * is none) before it checks that the class is registered; the codec refuses the name first.
   */
  @Test
  void aClassNamedInTheBytesIsNeverLookedUp() {
    Output output = new Output(256, -1);
    output.writeVarInt(1, true); // Kryo's marker: a class by name follows
    output.writeVarInt(1, true); // the name's id within the stream
    output.writeString("dev.stowage.codec.NoSuchClass");
    byte[] named = output.toBytes();
    assertThatThrownBy(() -> codec.decode(named))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("kryo codec could not decode")
        .hasMessageContaining("dev.stowage.codec.NoSuchClass")
        .hasMessageContaining("never looked up by name")
        .hasMessageNotContaining("Unable to find class");
  }

  @Test
  void anUnknownClassIdIsRejected() {
    byte[] unknownId = {(byte) 90, 1, 2, 3};
    assertThatThrownBy(() -> codec.decode(unknownId))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("unregistered class ID");
  }

  @Test
  void aValueTypeWhoseNestedClassesAreNotPassedIsRefusedAtOnce() {
    assertThatThrownBy(() -> Codecs.kryo(Post.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Post.Author.class.getName())
        .hasMessageContaining(Post.Status.class.getName());
    assertThatThrownBy(() -> Codecs.kryo(Post.class, Post.Author.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Post.Status.class.getName())
        .hasMessageNotContaining(Post.Author.class.getName());
  }

  /**
   * A list whose element type Kryo takes from the field's generics, and one it reads untyped; a
   * class, not a record, so that Kryo's field serializer (which pushes the fields' generics) reads
   * it.
   */
  static final class Mixed implements Serializable {
    private static final long serialVersionUID = 1L;
    private List<Long> numbers = new ArrayList<>();
    private Object other = "";

    Mixed() {}

    Mixed(List<Long> numbers, Object other) {
      this.numbers = numbers;
      this.other = other;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Mixed m && m.numbers.equals(numbers) && m.other.equals(other);
    }

    @Override
    public int hashCode() {
      return Objects.hash(numbers, other);
    }

    @Override
    public String toString() {
      return "Mixed" + numbers + other;
    }
  }

  @Test
  void aReadThatFailedInsideAGenericFieldLeavesNothingForTheNextRead() {
    Codec<Mixed> mixed = Codecs.kryo(Mixed.class);
    Mixed value =
        new Mixed(new ArrayList<>(List.of(1L, 2L, 3L)), new ArrayList<>(List.of("a", "b")));
    byte[] valid = mixed.encode(value);
    for (int length = 1; length < valid.length; length++) {
      byte[] cut = Arrays.copyOf(valid, length);
      try {
        mixed.decode(cut);
      } catch (CodecException expected) {
        // the reader stopped inside the value, some of it inside the generic field
      }
      assertThat(mixed.decode(valid)).as("after a read cut at %d bytes", length).isEqualTo(value);
    }
  }

  @Test
  void hugeLengthsInCorruptBytesFailBeforeAllocating() {
    byte[] hugeVarint = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
    // A valid value is the class id (one byte here), then the length: replace the length.
    Codec<byte[]> bytes = Codecs.kryo(byte[].class);
    byte[] array = withLengthReplaced(bytes.encode(new byte[] {1, 2, 3}), hugeVarint);
    assertThatThrownBy(() -> bytes.decode(array))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("cannot fit");

    Codec<String[]> strings = Codecs.kryo(String[].class);
    byte[] stringArray = withLengthReplaced(strings.encode(new String[] {"a"}), hugeVarint);
    assertThatThrownBy(() -> strings.decode(stringArray))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("cannot fit");

    @SuppressWarnings("rawtypes")
    Codec<ArrayList> lists = Codecs.kryo(ArrayList.class);
    byte[] list = withLengthReplaced(lists.encode(new ArrayList<>(List.of("a", "b"))), hugeVarint);
    assertThatThrownBy(() -> lists.decode(list))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("cannot fit");

    @SuppressWarnings("rawtypes")
    Codec<HashMap> maps = Codecs.kryo(HashMap.class);
    byte[] map = withLengthReplaced(maps.encode(new HashMap<>(Map.of("a", "b"))), hugeVarint);
    assertThatThrownBy(() -> maps.decode(map))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("cannot fit");

    Codec<Post> posts = Codecs.kryo(Post.class, Post.Author.class, Post.Status.class);
    byte[] post =
        posts.encode(
            new Post(1, null, "t", "body ünïcode", null, null, null, null, null, null, null));
    int body = indexOf(post, "body".getBytes(StandardCharsets.US_ASCII)) - 1;
    byte[] hugeString = Arrays.copyOf(post, body + 5);
    // A UTF-8 string: flag bit 0x80 with a continuation bit 0x40, then more varint bytes.
    hugeString[body] = (byte) 0xff;
    hugeString[body + 1] = (byte) 0xff;
    hugeString[body + 2] = (byte) 0xff;
    hugeString[body + 3] = (byte) 0xff;
    hugeString[body + 4] = (byte) 0x07;
    assertThatThrownBy(() -> posts.decode(hugeString))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("a string of");
  }

  private static byte[] withLengthReplaced(byte[] valid, byte[] length) {
    byte[] corrupt = new byte[1 + length.length + valid.length];
    corrupt[0] = valid[0];
    System.arraycopy(length, 0, corrupt, 1, length.length);
    System.arraycopy(valid, 2, corrupt, 1 + length.length, valid.length - 2);
    return corrupt;
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
