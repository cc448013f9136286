package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.codec.Shapes.Circle;
import dev.stowage.codec.Shapes.Drawing;
import dev.stowage.codec.Shapes.Square;
import java.util.Arrays;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.junit.jupiter.api.Test;

class ForySecurityUnitTests {
  private final Codec<Drawing> codec = Codecs.fory(Drawing.class, Circle.class);

  @Test
  void registeredImplementationsRoundTrip() {
    CodecRoundTrip.assertRoundTrip(codec, new Drawing("circle", new Circle(2.5)));
    CodecRoundTrip.assertRoundTrip(codec, new Drawing("empty", null));
  }

  @Test
  void encodingAnUnregisteredClassFails() {
    assertThatThrownBy(() -> codec.encode(new Drawing("square", new Square(1))))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("fory codec could not encode")
        .hasMessageContaining(Square.class.getName());
  }

  @Test
  void bytesNamingAnUnregisteredClassAreRejected() {
    // A permissive Fory writes the unregistered class by name, as an attacker's bytes would.
    Fory permissive =
        Fory.builder()
            .withLanguage(Language.JAVA)
            .requireClassRegistration(false)
            .withRefTracking(false)
            .build();
    byte[] root = permissive.serialize(new Square(3));
    assertThatThrownBy(() -> codec.decode(root))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("fory codec could not decode");

    Fory sameRegistrations =
        Fory.builder()
            .withLanguage(Language.JAVA)
            .requireClassRegistration(false)
            .withRefTracking(false)
            .build();
    sameRegistrations.register(Drawing.class);
    sameRegistrations.register(Circle.class);
    assertThat(codec.decode(sameRegistrations.serialize(new Drawing("ok", new Circle(1)))))
        .isEqualTo(new Drawing("ok", new Circle(1)));
    byte[] nested = sameRegistrations.serialize(new Drawing("nested", new Square(4)));
    assertThatThrownBy(() -> codec.decode(nested))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("fory codec could not decode");
  }

  @Test
  void aValueTypeWhoseNestedClassesAreNotPassedIsRefusedAtOnce() {
    assertThatThrownBy(() -> Codecs.fory(Post.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Post.Author.class.getName())
        .hasMessageContaining(Post.Status.class.getName());
  }

  @Test
  void trailingBytesAreRejected() {
    byte[] valid = codec.encode(new Drawing("circle", new Circle(2.5)));
    byte[] longer = Arrays.copyOf(valid, valid.length + 3);
    assertThatThrownBy(() -> codec.decode(longer))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("ended after " + valid.length + " bytes");
  }
}
