package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyNamesUnitTests {
  private static final byte[] JDK_KIM = {(byte) 0xac, (byte) 0xed, 0, 5, 't', 0, 3, 'k', 'i', 'm'};

  @Test
  void textKeysAreShownAsTheyAreAndOthersEscapedAsRedisCliDoes() {
    assertThat(KeyNames.show("books::café".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("books::café");
    assertThat(KeyNames.show(JDK_KIM)).isEqualTo("\\xac\\xed\\x00\\x05t\\x00\\x03kim");
    assertThat(KeyNames.show(new byte[] {'a', '\\', (byte) 0xff})).isEqualTo("a\\\\\\xff");
    assertThat(KeyNames.isBinary(JDK_KIM)).isTrue();
  }

  @Test
  void patternsTakeTheEscapesKeysArePrintedWith() {
    assertThat(KeyNames.pattern("\\xac\\xed*")).containsExactly(0xac - 256, 0xed - 256, '*');
    assertThat(KeyNames.pattern("a\\x2a"))
        .as("a byte special to a pattern matches itself")
        .containsExactly('a', '\\', '*');
    assertThat(KeyNames.pattern("books::\\*"))
        .isEqualTo("books::\\*".getBytes(StandardCharsets.UTF_8));
    assertThat(KeyNames.pattern("é*")).isEqualTo("é*".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void hexKeysAreParsedAndBadOnesNamed() {
    assertThat(KeyNames.hex("--key-hex", "0xaced 0005 7400036b696d")).isEqualTo(JDK_KIM);
    assertThatThrownBy(() -> KeyNames.hex("--key-hex", "abc"))
        .hasMessageStartingWith("--key-hex: 'abc' is not a key in hex");
  }
}
