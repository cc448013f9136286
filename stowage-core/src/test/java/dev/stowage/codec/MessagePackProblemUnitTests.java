package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Inspector;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class MessagePackProblemUnitTests {

  @Test
  void aWellFormedValueHasNoProblem() {
    byte[] value = Codecs.msgpack(Post.class).encode(PostFixtures.generated(1, 7).get(0));
    assertThat(Inspector.messagePackProblem(value, 0, value.length)).isEmpty();
  }

  @Test
  void declaredLengthsPastTheBytesAndCutValuesAreNamed() {
    byte[] bomb = {(byte) 0x92, (byte) 0xc6, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0};
    assertThat(Inspector.messagePackProblem(bomb, 0, bomb.length))
        .hasValueSatisfying(
            problem -> assertThat(problem).contains("bin 32").contains("2147483632"));
    byte[] value = Codecs.msgpack(Post.class).encode(PostFixtures.generated(1, 7).get(0));
    assertThat(Inspector.messagePackProblem(value, 0, value.length - 3))
        .hasValueSatisfying(problem -> assertThat(problem).containsPattern("at byte \\d+"));
    byte[] deep = new byte[1002];
    Arrays.fill(deep, (byte) 0x91);
    assertThat(Inspector.messagePackProblem(deep, 0, deep.length)).isPresent();
    assertThatThrownBy(() -> Inspector.messagePackProblem(value, 5, value.length))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
