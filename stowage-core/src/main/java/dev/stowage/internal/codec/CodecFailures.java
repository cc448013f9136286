package dev.stowage.internal.codec;

import dev.stowage.CodecException;
import java.lang.reflect.Type;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The exceptions every built-in codec throws, with one wording: the codec, what it was doing, the
 * type, and the library's own message, with the library's exception as the cause.
 */
final class CodecFailures {
  private CodecFailures() {}

  static CodecException encode(String codec, Type type, Throwable cause) {
    return new CodecException(
        codec + " codec could not encode a " + name(type) + ": " + describe(cause), cause);
  }

  static CodecException decode(String codec, Type type, int length, Throwable cause) {
    return new CodecException(
        codec
            + " codec could not decode "
            + length
            + " bytes as "
            + name(type)
            + ": "
            + describe(cause),
        cause);
  }

  /**
   * As {@link #decode(String, Type, int, Throwable)}, worded after the innermost cause: for
   * libraries, such as Fory, that wrap every failure in one generic message.
   */
  @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the chain
  static CodecException decodeByRootCause(String codec, Type type, int length, Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return new CodecException(
        codec
            + " codec could not decode "
            + length
            + " bytes as "
            + name(type)
            + ": "
            + describe(root),
        cause);
  }

  /**
   * Bytes that the codec will not hand to its library at all: {@code reason} says which bound they
   * break.
   */
  static CodecException refused(String codec, Type type, int length, String reason) {
    return refused(codec, type, length, reason, null);
  }

  /**
   * As {@link #refused(String, Type, int, String)}, with the library's exception that followed the
   * refusal.
   */
  static CodecException refused(
      String codec, Type type, int length, String reason, @Nullable Throwable cause) {
    return new CodecException(
        codec + " codec refused to decode " + length + " bytes as " + name(type) + ": " + reason,
        cause);
  }

  static CodecException decodedNothing(String codec, Type type, int length) {
    return new CodecException(
        codec + " codec decoded " + length + " bytes to no " + name(type) + " (null)");
  }

  static CodecException wrongType(String codec, Type type, Object decoded) {
    return new CodecException(
        codec
            + " codec decoded a "
            + decoded.getClass().getName()
            + " where a "
            + name(type)
            + " was expected");
  }

  /**
   * Checks the bounds of a decode call, so that a bad range is a CodecException and not an index
   * error.
   */
  static void checkRange(String codec, byte[] data, int offset, int length) {
    Objects.requireNonNull(data, "data");
    if (offset < 0 || length < 0 || offset > data.length - length) {
      throw new CodecException(
          codec
              + " codec was asked to decode "
              + length
              + " bytes at offset "
              + offset
              + " of a "
              + data.length
              + "-byte array");
    }
  }

  /** A type's name as Java spells it: {@code java.util.List<Item>}, {@code com.example.Item}. */
  static String name(Type type) {
    return type instanceof Class<?> c && !c.isArray() ? c.getName() : type.getTypeName();
  }

  private static String describe(Throwable cause) {
    String message = cause.getMessage();
    String text = message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    int newline = text.indexOf('\n');
    String firstLine = newline < 0 ? text : text.substring(0, newline);
    return firstLine.length() > 300 ? firstLine.substring(0, 300) + "..." : firstLine;
  }
}
