package dev.stowage.internal.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.format.CodecIds;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * JSON documents held as their UTF-8 bytes, stored and read back as they are. Both directions check
 * that the bytes are exactly one well-formed JSON value, with Jackson's streaming parser (no
 * objects are built), so a corrupt or foreign value is a {@link CodecException}, never spliced into
 * a response. Thread-safe.
 */
final class JsonBytesCodec implements Codec<byte[]> {
  static final JsonBytesCodec INSTANCE = new JsonBytesCodec();
  private static final String NAME = "json";
  private static final int MAX_DEPTH = 1000;

  private final JsonFactory factory =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
          .build();

  private JsonBytesCodec() {}

  @Override
  public int id() {
    return CodecIds.JSON;
  }

  @Override
  public byte[] encode(byte[] value) {
    Objects.requireNonNull(value, "value");
    check(value, 0, value.length);
    return value.clone();
  }

  @Override
  public byte[] decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    check(data, offset, length);
    return Arrays.copyOfRange(data, offset, offset + length);
  }

  private void check(byte[] data, int offset, int length) {
    try (JsonParser parser = factory.createParser(data, offset, length)) {
      if (parser.nextToken() == null) {
        throw new CodecException("json codec found no JSON value in " + length + " bytes");
      }
      parser.skipChildren();
      JsonToken after = parser.nextToken();
      if (after != null) {
        throw new CodecException(
            "json codec found more than one JSON value in "
                + length
                + " bytes ("
                + after
                + " after the first)");
      }
    } catch (IOException e) {
      throw CodecFailures.decode(NAME, byte[].class, length, e);
    }
  }

  @Override
  public String toString() {
    return "json codec for JSON held as bytes";
  }
}
