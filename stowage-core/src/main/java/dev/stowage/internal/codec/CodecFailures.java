package dev.stowage.internal.codec;

import dev.stowage.CodecException;
import java.util.Objects;

/**
 * The exceptions every built-in codec throws, with one wording: the codec, what it was doing, the
 * type, and the library's own message, with the library's exception as the cause.
 */
final class CodecFailures {
  private CodecFailures() {}

  static CodecException encode(String codec, Class<?> type, Throwable cause) {
    return new CodecException(codec + " codec could not encode a " + type.getName() + ": " + describe(cause), cause);
  }

  static CodecException decode(String codec, Class<?> type, int length, Throwable cause) {
    return new CodecException(
        codec + " codec could not decode " + length + " bytes as " + type.getName() + ": " + describe(cause), cause);
  }

  /**
   * As {@link #decode(String, Class, int, Throwable)}, worded after the innermost cause: for
   * libraries, such as Fory, that wrap every failure in one generic message.
   */
  static CodecException decodeByRootCause(String codec, Class<?> type, int length, Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return new CodecException(
        codec + " codec could not decode " + length + " bytes as " + type.getName() + ": " + describe(root), cause);
  }

  /** Bytes that the codec will not hand to its library at all: {@code reason} says which bound they break. */
  static CodecException refused(String codec, Class<?> type, int length, String reason) {
    return refused(codec, type, length, reason, null);
  }

  /** As {@link #refused(String, Class, int, String)}, with the library's exception that followed the refusal. */
  static CodecException refused(String codec, Class<?> type, int length, String reason, Throwable cause) {
    return new CodecException(codec + " codec refused to decode " + length + " bytes as " + type.getName() + ": " + reason,
        cause);
  }

  static CodecException decodedNothing(String codec, Class<?> type, int length) {
    return new CodecException(codec + " codec decoded " + length + " bytes to no " + type.getName() + " (null)");
  }

  static CodecException wrongType(String codec, Class<?> type, Object decoded) {
    return new CodecException(codec + " codec decoded a " + decoded.getClass().getName() + " where a "
        + type.getName() + " was expected");
  }

  /** Checks the bounds of a decode call, so that a bad range is a CodecException and not an index error. */
  static void checkRange(String codec, byte[] data, int offset, int length) {
    Objects.requireNonNull(data, "data");
    if (offset < 0 || length < 0 || offset > data.length - length) {
      throw new CodecException(codec + " codec was asked to decode " + length + " bytes at offset " + offset
          + " of a " + data.length + "-byte array");
    }
  }

  private static String describe(Throwable cause) {
    String message = cause.getMessage();
    String text = message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    int newline = text.indexOf('\n');
    String firstLine = newline < 0 ? text : text.substring(0, newline);
    return firstLine.length() > 300 ? firstLine.substring(0, 300) + "..." : firstLine;
  }
}
