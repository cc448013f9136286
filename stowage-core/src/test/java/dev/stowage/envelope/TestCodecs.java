package dev.stowage.envelope;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.format.CodecIds;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Two small string codecs for envelope tests, independent of the built-in codecs: strict UTF-8
 * under the built-in {@link CodecIds#STRING} id, and strict UTF-16BE under the first user id.
 */
public final class TestCodecs {
  /** UTF-8 text, id 10. */
  public static final Codec<String> UTF8 =
      new StrictTextCodec(CodecIds.STRING, StandardCharsets.UTF_8);

  /** UTF-16BE text, id 128 ("user-128"). */
  public static final Codec<String> UTF16 =
      new StrictTextCodec(CodecIds.USER_MIN, StandardCharsets.UTF_16BE);

  private TestCodecs() {}

  /** A text codec that rejects malformed input with a {@link CodecException}. */
  public static final class StrictTextCodec implements Codec<String> {
    private final int id;
    private final Charset charset;

    public StrictTextCodec(int id, Charset charset) {
      this.id = id;
      this.charset = charset;
    }

    @Override
    public int id() {
      return id;
    }

    @Override
    public byte[] encode(String value) {
      return value.getBytes(charset);
    }

    @Override
    public String decode(byte[] data, int offset, int length) {
      try {
        return charset
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(data, offset, length))
            .toString();
      } catch (CharacterCodingException e) {
        throw new CodecException("not valid " + charset + ": " + e, e);
      }
    }
  }
}
