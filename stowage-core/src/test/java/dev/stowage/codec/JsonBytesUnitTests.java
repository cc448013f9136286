package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CodecIds;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonBytesUnitTests {
  private final Codec<byte[]> codec = Codecs.jsonBytes();

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void storedJsonComesBackAsItWasUnderTheJsonId() {
    byte[] fragment = utf8("{\"id\":\"a\",\"score\":7,\"tags\":[1,2]}");
    EnvelopeCodec<byte[]> envelope = EnvelopeCodec.builder(codec).build();

    byte[] stored = envelope.encode(fragment);

    assertThat(codec.id()).isEqualTo(CodecIds.JSON);
    assertThat(envelope.decode(stored)).isEqualTo(fragment);
    assertThat(EnvelopeCodec.builder(Codecs.json(Fragment.class)).build().decode(stored))
        .as("a JSON reader reads it")
        .isEqualTo(new Fragment("a", 7));
  }

  record Fragment(String id, long score) {}

  @Test
  void anythingButOneWellFormedValueIsRefused() {
    for (String bad : new String[] {"", "{", "{\"a\":1}{\"b\":2}", "[1,2", "nul", "{\"a\":1} x"}) {
      byte[] bytes = utf8(bad);
      assertThatThrownBy(() -> codec.decode(bytes)).as(bad).isInstanceOf(CodecException.class);
      assertThatThrownBy(() -> codec.encode(bytes)).as(bad).isInstanceOf(CodecException.class);
    }
    byte[] deep = utf8("[".repeat(1001) + "]".repeat(1001));
    assertThatThrownBy(() -> codec.decode(deep))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("1000");
    assertThat(codec.decode(utf8("[".repeat(1000) + "]".repeat(1000)))).hasSize(2000);
  }
}
