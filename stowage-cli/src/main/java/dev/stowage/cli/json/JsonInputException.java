package dev.stowage.cli.json;

import dev.stowage.StowageException;
import org.jspecify.annotations.Nullable;

/**
 * The input is not one well-formed value. {@link #getMessage()} reads {@code name:line:column:
 * reason}; {@link #report()} adds the offending line and a caret under the spot. Lines and columns
 * count from 1, columns in characters.
 */
public final class JsonInputException extends StowageException {
  private static final long serialVersionUID = 1L;
  private final String source;
  private final int line;
  private final int column;
  private final long byteOffset;
  private final String reason;
  private final @Nullable String excerpt;
  private final int caret;

  JsonInputException(
      String source,
      int line,
      int column,
      long byteOffset,
      String reason,
      @Nullable String excerpt,
      int caret) {
    super(position(source, line, column, byteOffset) + ": " + reason);
    this.source = source;
    this.line = line;
    this.column = column;
    this.byteOffset = byteOffset;
    this.reason = reason;
    this.excerpt = excerpt;
    this.caret = caret;
  }

  private static String position(String source, int line, int column, long byteOffset) {
    return line > 0 ? source + ":" + line + ":" + column : source + ": byte " + byteOffset;
  }

  /** The input's name: the file, or {@code -} for standard input. */
  public String source() {
    return source;
  }

  /** The line of the error, from 1; 0 for MessagePack input, which has no lines. */
  public int line() {
    return line;
  }

  /** The column of the error in characters, from 1; 0 for MessagePack input. */
  public int column() {
    return column;
  }

  /** The offset of the error in bytes from the start of the input, from 0. */
  public long byteOffset() {
    return byteOffset;
  }

  /** What is wrong, without the position. */
  public String reason() {
    return reason;
  }

  /**
   * The message, the line of input (or the part of it around the spot) and a caret under the spot.
   */
  public String report() {
    if (excerpt == null) {
      return String.valueOf(getMessage());
    }
    return getMessage() + "\n" + excerpt + "\n" + " ".repeat(Math.max(0, caret)) + "^";
  }
}
