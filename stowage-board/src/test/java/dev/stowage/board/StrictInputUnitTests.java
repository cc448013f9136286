package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** The byte checks every request body passes before it is parsed. */
class StrictInputUnitTests {
  @Test
  void jsonMustBeWellFormedUtf8ToItsLastByte() {
    assertThatCode(
            () ->
                StrictInput.checkJson(
                    "{\"t\":\"é \ud83d\ude00\"}".getBytes(StandardCharsets.UTF_8)))
        .doesNotThrowAnyException();
    byte[] truncated = HexFormat.of().parseHex("7b2274223a22e282"); // {"t":" then half of €
    assertThatThrownBy(() -> StrictInput.checkJson(truncated))
        .isInstanceOf(BoardRequestException.class)
        .hasMessage(
            "malformed JSON: the body is not valid UTF-8 at offset 6 (bytes from there:"
                + " e2 82)");
    byte[] beyondUnicode = HexFormat.of().parseHex("22f4908080"); // "U+110000
    assertThatThrownBy(() -> StrictInput.checkJson(beyondUnicode))
        .hasMessage(
            "malformed JSON: the body is not valid UTF-8 at offset 1 (bytes from there:"
                + " f4 90 80 80)");
  }

  @Test
  void aMessagePackStringLongerThanTheBodyIsRefusedBeforeAnythingIsAllocated() {
    // str32 announcing 2^31 - 1 bytes, followed by three.
    byte[] lying = HexFormat.of().parseHex("db7fffffff616263");
    assertThatThrownBy(() -> StrictInput.checkMsgpack(lying, 1000))
        .isInstanceOf(BoardRequestException.class)
        .hasMessage(
            "malformed MessagePack: a string of 2147483647 bytes at offset 5 runs past"
                + " the end of the body");
  }

  @Test
  void messagePackMayNestAsDeepAsTheLimitAndNoDeeper() throws IOException {
    assertThatCode(() -> StrictInput.checkMsgpack(nested(1000), 1000)).doesNotThrowAnyException();
    assertThatThrownBy(() -> StrictInput.checkMsgpack(nested(1001), 1000))
        .hasMessage(
            "malformed MessagePack: arrays and maps nest deeper than the limit of 1000"
                + " levels (JSON's)");
  }

  @Test
  void messagePackThatEndsInsideAContainerIsMalformed() {
    byte[] unfinished = HexFormat.of().parseHex("92a161"); // an array of two holding one "a"
    assertThatThrownBy(() -> StrictInput.checkMsgpack(unfinished, 1000))
        .isInstanceOf(BoardRequestException.class)
        .hasMessageStartingWith("malformed MessagePack: ");
  }

  /** Maps and arrays alternating, {@code levels} deep, holding a string. */
  private static byte[] nested(int levels) throws IOException {
    MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
    for (int i = 0; i < levels; i++) {
      if (i % 2 == 0) {
        packer.packMapHeader(1).packString("k");
      } else {
        packer.packArrayHeader(1);
      }
    }
    packer.packString("deep");
    return packer.toByteArray();
  }
}
