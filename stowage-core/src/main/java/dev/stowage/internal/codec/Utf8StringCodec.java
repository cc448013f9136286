package dev.stowage.internal.codec;

import dev.stowage.Codec;
import dev.stowage.internal.format.CodecIds;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Strings as UTF-8 bytes, the same bytes Spring's {@code StringRedisSerializer} writes (an unpaired
 * surrogate, which UTF-8 cannot hold, is written as {@code '?'} as the JDK does). Decoding is
 * strict: bytes that are not valid UTF-8 fail rather than turn into replacement characters.
 * Thread-safe and stateless.
 */
final class Utf8StringCodec implements Codec<String> {
  /** The one instance. */
  static final Utf8StringCodec INSTANCE = new Utf8StringCodec();

  private static final String NAME = "string";

  private Utf8StringCodec() {}

  @Override
  public int id() {
    return CodecIds.STRING;
  }

  @Override
  public byte[] encode(String value) {
    Objects.requireNonNull(value, "value");
    return value.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    String text = new String(data, offset, length, StandardCharsets.UTF_8);
    // The JDK's fast decoder replaces bad input with U+FFFD; only then is a strict check needed.
    if (text.indexOf('\uFFFD') >= 0) {
      try {
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(data, offset, length));
      } catch (CharacterCodingException e) {
        throw CodecFailures.decode(NAME, String.class, length, e);
      }
    }
    return text;
  }

  @Override
  public String toString() {
    return "string codec (UTF-8)";
  }
}
