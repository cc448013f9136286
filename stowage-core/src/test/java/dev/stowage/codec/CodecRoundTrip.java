package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Codec;
import java.util.Arrays;

/**
 * The one round trip every codec test goes through: encode, decode the whole array, decode the same
 * bytes from the middle of a larger array (so that offset and length are honoured), and encode the
 * decoded value again to the same bytes.
 */
final class CodecRoundTrip {
  private static final byte[] PADDING = {
    '{', '"', (byte) 0x92, (byte) 0xC1, 0, 1, 2, 0x7f, (byte) 0xff
  };

  private CodecRoundTrip() {}

  /** Runs the round trip and returns the encoded bytes. */
  static <T> byte[] assertRoundTrip(Codec<T> codec, T value) {
    byte[] bytes = codec.encode(value);
    T whole = codec.decode(bytes);
    assertThat(whole)
        .as("%s decoding its own %d bytes", codec.name(), bytes.length)
        .isEqualTo(value);

    int before = 5;
    byte[] padded = new byte[before + bytes.length + PADDING.length];
    System.arraycopy(PADDING, 0, padded, 0, before);
    System.arraycopy(bytes, 0, padded, before, bytes.length);
    System.arraycopy(PADDING, 0, padded, before + bytes.length, PADDING.length);
    assertThat(codec.decode(padded, before, bytes.length))
        .as("%s decoding at offset %d of a larger array", codec.name(), before)
        .isEqualTo(value);

    assertThat(Arrays.equals(codec.encode(whole), bytes))
        .as("%s encodes the decoded value to the same bytes", codec.name())
        .isTrue();
    return bytes;
  }
}
