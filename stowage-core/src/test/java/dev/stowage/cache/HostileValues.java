package dev.stowage.cache;

import com.github.luben.zstd.Zstd;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Stored values that are small, well-formed and within {@code maxDecodedSize}, but would build far
 * more objects than their bytes: issue 27's {@code Rec} with millions of one-letter tags.
 */
final class HostileValues {
  /** The payload size: 8,388,601 bytes, just under the caches' 8 MiB limit. */
  static final int PAYLOAD_SIZE = 8_388_601;

  /** The tags in it: each is {@code a1 61}, the one-letter string "a". */
  static final int TAGS = (PAYLOAD_SIZE - 9) / 2;

  /** The value type. */
  public record Rec(String name, int n, List<String> tags) {}

  private HostileValues() {}

  /**
   * A {@link Rec} in MessagePack's positional shape ({@code [name, n, tags]}, as the default codec
   * writes it) with {@code tags} one-letter tags.
   */
  static byte[] msgpackRec(int tags) {
    byte[] payload = new byte[9 + 2 * tags];
    payload[0] = (byte) 0x93; // fixarray of 3
    payload[1] = (byte) 0xa1; // fixstr "x"
    payload[2] = 'x';
    payload[3] = 1; // fixint 1
    payload[4] = (byte) 0xdd; // array 32
    payload[5] = (byte) (tags >>> 24);
    payload[6] = (byte) (tags >>> 16);
    payload[7] = (byte) (tags >>> 8);
    payload[8] = (byte) tags;
    for (int i = 9; i < payload.length; i += 2) {
      payload[i] = (byte) 0xa1;
      payload[i + 1] = 'a';
    }
    return payload;
  }

  /** A {@link Rec} as JSON with {@code tags} one-letter tags. */
  static byte[] jsonRec(int tags) {
    byte[] start = "{\"name\":\"x\",\"n\":1,\"tags\":[".getBytes(StandardCharsets.US_ASCII);
    byte[] json = new byte[start.length + 4 * tags + 1];
    System.arraycopy(start, 0, json, 0, start.length);
    for (int i = 0; i < tags; i++) {
      int at = start.length + 4 * i;
      json[at] = '"';
      json[at + 1] = 'a';
      json[at + 2] = '"';
      json[at + 3] = ',';
    }
    json[json.length - 2] = ']';
    json[json.length - 1] = '}';
    return json;
  }

  /** An envelope without a schema field around {@code payload}: codec {@code codecId}, zstd (2). */
  static byte[] zstdEnvelope(int codecId, byte[] payload) {
    byte[] frame = Zstd.compress(payload);
    byte[] value = new byte[4 + frame.length];
    value[0] = (byte) 0xC1;
    value[1] = 0x10;
    value[2] = (byte) codecId;
    value[3] = 2;
    System.arraycopy(frame, 0, value, 4, frame.length);
    return value;
  }

  /**
   * An envelope without a schema field around {@code payload}: codec {@code codecId}, no
   * compression.
   */
  static byte[] plainEnvelope(int codecId, byte[] payload) {
    byte[] value = new byte[4 + payload.length];
    value[0] = (byte) 0xC1;
    value[1] = 0x10;
    value[2] = (byte) codecId;
    value[3] = 0;
    System.arraycopy(payload, 0, value, 4, payload.length);
    return value;
  }

  /** {@code count} copies of the tag "a". */
  static List<String> tags(int count) {
    String[] tags = new String[count];
    Arrays.fill(tags, "a");
    return Arrays.asList(tags);
  }
}
