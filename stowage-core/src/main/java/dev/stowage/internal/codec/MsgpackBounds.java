package dev.stowage.internal.codec;

import com.fasterxml.jackson.core.StreamReadConstraints;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A walk over the headers of one MessagePack value, before any parser sees it. msgpack-java
 * allocates a string, binary or extension payload of its declared length before it reads a byte of
 * it, so ten bytes that declare a {@code bin 32} of 2 GiB cost 2 GiB. The walk reads only headers
 * and lengths, allocates nothing, and refuses a value in which
 *
 * <ul>
 *   <li>a payload declares more bytes than are left of the value,
 *   <li>arrays and maps declare more elements than bytes are left (each element takes at least
 *       one),
 *   <li>containers nest deeper than {@link #MAX_DEPTH}, Jackson's own limit for JSON,
 *   <li>the value is cut short, or uses the byte {@code 0xc1}, which MessagePack never uses.
 * </ul>
 *
 * <p>Given {@link DecodeLimits}, the walk also counts what the value would build, which its bytes
 * alone do not bound (a one-letter string takes 2 bytes and about 60 of heap): every value and map
 * key is an element, and a container whose declared elements take the value past {@link
 * DecodeLimits#maxElements()} is refused at its header, before the walk goes further; string,
 * binary and extension bytes are held to {@link DecodeLimits#maxStringBytes()}. The counts give the
 * estimate of the heap the value builds ({@link DecodeLimits#heapEstimate}).
 *
 * <p>Bytes after the first value are not looked at: the parser reads one value. Stateless and
 * thread-safe.
 */
public final class MsgpackBounds {
  /** The deepest nesting of arrays and maps a value may have. */
  public static final int MAX_DEPTH = StreamReadConstraints.DEFAULT_MAX_DEPTH;

  private MsgpackBounds() {}

  /**
   * Why the MessagePack value in {@code length} bytes of {@code data} at {@code offset} must not be
   * parsed, such as {@code "a bin 32 at byte 1 declares 2147483632 bytes, but 4 are left"}; or
   * {@code null} if its lengths, counts and depth are within the bounds. Byte positions count from
   * {@code offset}.
   */
  public static @Nullable String problem(byte[] data, int offset, int length) {
    try {
      walk(data, offset, length, null);
      return null;
    } catch (Refusal refusal) {
      return refusal.getMessage();
    }
  }

  /**
   * The heap that the MessagePack value in {@code length} bytes of {@code data} at {@code offset}
   * would build ({@link DecodeLimits#heapEstimate}), after checking its lengths, counts and depth
   * as {@link #problem} does and its elements and string bytes against {@code limits}.
   *
   * @throws Refusal saying which bound the value breaks
   */
  static long heapEstimate(byte[] data, int offset, int length, DecodeLimits limits)
      throws Refusal {
    return walk(data, offset, length, limits);
  }

  /** Why a value is not to be parsed: its message says which bound it breaks, and where. */
  static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;

    Refusal(String reason) {
      super(reason, null, false, false);
    }
  }

  private static long walk(byte[] data, int offset, int length, @Nullable DecodeLimits limits)
      throws Refusal {
    long maxElements = limits == null ? Long.MAX_VALUE : limits.maxElements();
    long maxStringBytes = limits == null ? Long.MAX_VALUE : limits.maxStringBytes();
    long elements = 0;
    long stringBytes = 0;
    int end = offset + length;
    int pos = offset;
    long[] pending = new long[16];
    int depth = 0;
    pending[0] = 1;
    long owed = 1; // values still to read, across every open container: each takes a byte at least
    while (depth >= 0) {
      if (pending[depth] == 0) {
        depth--;
        continue;
      }
      pending[depth]--;
      owed--;
      elements++;
      if (pos >= end) {
        throw new Refusal(
            "the value is cut short at byte "
                + (pos - offset)
                + ": "
                + (owed + 1)
                + " more values were declared");
      }
      int at = pos - offset;
      int b = data[pos++] & 0xff;
      long payload = 0;
      long children = 0;
      boolean text = false; // a string, binary or extension: bytes the parser copies out
      String kind = null;
      if (b <= 0x7f || b >= 0xe0) {
        // a fixint
      } else if (b <= 0x8f) {
        children = 2L * (b & 0x0f);
        kind = "a fixmap";
      } else if (b <= 0x9f) {
        children = b & 0x0f;
        kind = "a fixarray";
      } else if (b <= 0xbf) {
        payload = b & 0x1f;
        text = true;
        kind = "a fixstr";
      } else {
        int lengthBytes =
            switch (b) {
              case 0xc4, 0xc7, 0xd9 -> 1;
              case 0xc5, 0xc8, 0xda, 0xdc, 0xde -> 2;
              case 0xc6, 0xc9, 0xdb, 0xdd, 0xdf -> 4;
              default -> 0;
            };
        if (lengthBytes > end - pos) {
          throw new Refusal(kind(b) + " at byte " + at + " is cut short in its length");
        }
        long declared = 0;
        for (int i = 0; i < lengthBytes; i++) {
          declared = declared << 8 | (data[pos++] & 0xff);
        }
        kind = kind(b);
        switch (b) {
          case 0xc0, 0xc2, 0xc3 -> {} // nil, false, true
          case 0xc1 -> {
            throw new Refusal("byte " + at + " is 0xc1, which MessagePack never uses");
          }
          case 0xc4, 0xc5, 0xc6, 0xd9, 0xda, 0xdb -> {
            payload = declared;
            text = true;
          }
          case 0xc7, 0xc8, 0xc9 -> { // the extension's type byte, then its data
            payload = declared + 1;
            text = true;
          }
          case 0xca, 0xce, 0xd2 -> payload = 4;
          case 0xcb, 0xcf, 0xd3 -> payload = 8;
          case 0xcc, 0xd0 -> payload = 1;
          case 0xcd, 0xd1 -> payload = 2;
          case 0xd4 -> payload = 2;
          case 0xd5 -> payload = 3;
          case 0xd6 -> payload = 5;
          case 0xd7 -> payload = 9;
          case 0xd8 -> payload = 17;
          case 0xdc, 0xdd -> children = declared;
          case 0xde, 0xdf -> children = 2 * declared;
          default -> throw new IllegalStateException("unreachable: 0x" + Integer.toHexString(b));
        }
      }
      if (payload > end - pos) {
        throw new Refusal(
            kind
                + " at byte "
                + at
                + " declares "
                + payload
                + " bytes, but "
                + (end - pos)
                + " are left");
      }
      pos += (int) payload;
      if (text) {
        stringBytes += payload;
        if (limits != null && stringBytes > maxStringBytes) {
          throw new Refusal(
              limits.tooManyStringBytes(
                  kind
                      + " at byte "
                      + at
                      + " takes the value's strings and binaries to "
                      + stringBytes
                      + " bytes"));
        }
      }
      if (children > 0) {
        owed += children;
        if (owed > end - pos) {
          throw new Refusal(
              kind
                  + " at byte "
                  + at
                  + " declares "
                  + children
                  + " elements, but "
                  + (end - pos)
                  + " bytes are left"
                  + (owed > children
                      ? " for them and " + (owed - children) + " values declared before"
                      : ""));
        }
        if (limits != null && elements + owed > maxElements) {
          throw new Refusal(
              limits.tooManyElements(
                  kind
                      + " at byte "
                      + at
                      + " declares "
                      + children
                      + " elements: the value would hold at least "
                      + (elements + owed)));
        }
        if (depth + 1 > MAX_DEPTH) {
          throw new Refusal(
              kind + " at byte " + at + " nests deeper than " + MAX_DEPTH + " arrays and maps");
        }
        depth++;
        if (depth == pending.length) {
          pending = Arrays.copyOf(pending, depth * 2);
        }
        pending[depth] = children;
      }
    }
    return DecodeLimits.heapEstimate(elements, stringBytes);
  }

  private static String kind(int b) {
    return switch (b) {
      case 0xc4 -> "a bin 8";
      case 0xc5 -> "a bin 16";
      case 0xc6 -> "a bin 32";
      case 0xc7 -> "an ext 8";
      case 0xc8 -> "an ext 16";
      case 0xc9 -> "an ext 32";
      case 0xd9 -> "a str 8";
      case 0xda -> "a str 16";
      case 0xdb -> "a str 32";
      case 0xdc -> "an array 16";
      case 0xdd -> "an array 32";
      case 0xde -> "a map 16";
      case 0xdf -> "a map 32";
      default -> "the value 0x" + Integer.toHexString(b);
    };
  }
}
