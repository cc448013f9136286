package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bytes that are not a value of the codec's format: truncated, bit-flipped, random, or a bad
 * range. Each either decodes to a value (where the format allows it) or fails with a
 * CodecException; any other exception fails the test.
 */
class CodecCorruptionUnitTests {
  private static final int GARBAGE_CASES = 3_000;

  static Stream<CodecCase<?>> cases() {
    return CodecCases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void everyTruncationFailsWithCodecException(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    T value = c.generated().get(0);
    byte[] bytes = codec.encode(value);
    for (int length = 0; length < bytes.length; length++) {
      String what = "a prefix of " + length + " of " + bytes.length + " bytes";
      T sliced = decodeOrCodecException(codec, bytes, 0, length, what);
      T copied = decodeOrCodecException(codec, Arrays.copyOf(bytes, length), 0, length, what + " (copied)");
      assertThat(copied).as("%s: %s, sliced and copied", codec.name(), what).isEqualTo(sliced);
      if (sliced != null && !c.prefixesMayDecode()) {
        // Only bytes the reader never needs (Fory ends with a few) may be cut without a failure.
        assertThat(sliced).as("%s: %s decoded", codec.name(), what).isEqualTo(value);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void flippedBytesFailWithCodecExceptionOrDecode(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    byte[] valid = codec.encode(c.generated().get(1));
    Random random = new Random(99);
    for (int position = 0; position < valid.length; position++) {
      byte[] corrupt = valid.clone();
      corrupt[position] ^= (byte) (1 + random.nextInt(255));
      decodeOrCodecException(codec, corrupt, 0, corrupt.length, "byte " + position + " changed");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void randomBytesFailWithCodecExceptionOrDecode(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    byte[] valid = codec.encode(c.generated().get(2));
    Random random = new Random(2024);
    for (int i = 0; i < GARBAGE_CASES; i++) {
      // Half the cases keep a valid start, so that decoding gets past the first bytes.
      int keep = i % 2 == 0 ? 0 : random.nextInt(valid.length);
      byte[] garbage = Arrays.copyOf(valid, keep + random.nextInt(300));
      for (int j = keep; j < garbage.length; j++) {
        garbage[j] = (byte) random.nextInt(256);
      }
      decodeOrCodecException(codec, garbage, 0, garbage.length, "case " + i + " keeping " + keep + " valid bytes");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void aBadRangeIsACodecException(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    byte[] bytes = codec.encode(c.generated().get(0));
    assertThatThrownBy(() -> codec.decode(bytes, -1, 2)).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> codec.decode(bytes, 0, bytes.length + 1)).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> codec.decode(bytes, bytes.length, 1)).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> codec.decode(bytes, 1, -1)).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> codec.decode(bytes, Integer.MAX_VALUE, 2)).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> codec.decode(null, 0, 0)).isInstanceOf(NullPointerException.class).hasMessage("data");
    assertThatThrownBy(() -> codec.encode(null)).isInstanceOf(NullPointerException.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void emptyInputIsACodecException(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    if (c.prefixesMayDecode()) {
      return; // the empty string is a valid string
    }
    assertThatThrownBy(() -> codec.decode(new byte[0]))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(codec.name());
  }

  /** Returns the decoded value, or null after a CodecException; fails the test on any other exception. */
  private static <T> T decodeOrCodecException(Codec<T> codec, byte[] data, int offset, int length, String what) {
    try {
      T decoded = codec.decode(data, offset, length);
      assertThat(decoded).as("%s: %s decoded to null", codec.name(), what).isNotNull();
      return decoded;
    } catch (CodecException expected) {
      assertThat(expected.getMessage()).startsWith(codec.name());
      return null;
    } catch (Throwable other) {
      throw new AssertionError(
          codec.name() + ": " + what + " threw " + other.getClass().getName() + " instead of a CodecException", other);
    }
  }
}
