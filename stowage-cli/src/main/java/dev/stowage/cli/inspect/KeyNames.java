package dev.stowage.cli.inspect;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Redis keys as the commands print and take them. A key that is UTF-8 text without control
 * characters is printed as it is; any other key (such as one a default {@code RedisTemplate} wrote
 * with JDK serialization, {@code ac ed 00 05 …}) is printed escaped, as {@code redis-cli} prints
 * it: printable ASCII as itself, a backslash as {@code \\}, every other byte as {@code \xNN}, so
 * {@code \xac\xed\x00\x05t\x00\x03kim}. Patterns ({@code --match}) take the same {@code \xNN}
 * escapes, so a printed key can be matched again; keys can be given in hex ({@code --key-hex}).
 */
public final class KeyNames {
  private KeyNames() {}

  /**
   * The key as printed: as it is when it is UTF-8 text without control characters, escaped
   * otherwise.
   */
  public static String show(byte[] key) {
    String text = plainText(key);
    return text != null ? text : escape(key);
  }

  /** Whether {@link #show} escapes the key. */
  public static boolean isBinary(byte[] key) {
    return plainText(key) == null;
  }

  /** Every byte but printable ASCII as {@code \xNN}, and a backslash as {@code \\}. */
  static String escape(byte[] key) {
    StringBuilder text = new StringBuilder(key.length * 2);
    for (byte b : key) {
      int c = b & 0xff;
      if (c == '\\') {
        text.append("\\\\");
      } else if (c >= 0x20 && c < 0x7f) {
        text.append((char) c);
      } else {
        text.append(String.format(Locale.ROOT, "\\x%02x", c));
      }
    }
    return text.toString();
  }

  private static @Nullable String plainText(byte[] key) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(key))
              .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return null;
      }
    }
    return text;
  }

  /**
   * A SCAN pattern with its {@code \xNN} escapes turned into those bytes (a byte that is special in
   * a pattern, such as {@code *}, matches itself); the rest of the text is UTF-8, its own escapes
   * ({@code \\}, {@code \*}) kept for Redis.
   */
  public static byte[] pattern(String match) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int i = 0;
    while (i < match.length()) {
      char c = match.charAt(i);
      if (c == '\\'
          && i + 3 < match.length()
          && match.charAt(i + 1) == 'x'
          && isHex(match.charAt(i + 2))
          && isHex(match.charAt(i + 3))) {
        int b = Integer.parseInt(match.substring(i + 2, i + 4), 16);
        if (b == '*' || b == '?' || b == '[' || b == ']' || b == '\\') {
          bytes.write('\\');
        }
        bytes.write(b);
        i += 4;
      } else if (c == '\\' && i + 1 < match.length()) {
        byte[] escaped = match.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
        bytes.write(escaped, 0, escaped.length);
        i += 2;
      } else {
        int end = i + Character.charCount(match.codePointAt(i));
        byte[] utf8 = match.substring(i, end).getBytes(StandardCharsets.UTF_8);
        bytes.write(utf8, 0, utf8.length);
        i = end;
      }
    }
    return bytes.toByteArray();
  }

  private static boolean isHex(char c) {
    return Character.digit(c, 16) >= 0;
  }

  /**
   * The key written in hex, such as {@code aced000574000362…} (spaces and a leading {@code 0x}
   * allowed).
   *
   * @throws IllegalArgumentException naming {@code option} when it is not an even number of hex
   *     digits
   */
  public static byte[] hex(String option, String hex) {
    String digits = hex.strip().replace(" ", "");
    if (digits.startsWith("0x") || digits.startsWith("0X")) {
      digits = digits.substring(2);
    }
    if (digits.isEmpty()
        || digits.length() % 2 != 0
        || !digits.chars().allMatch(c -> isHex((char) c))) {
      throw new IllegalArgumentException(
          option
              + ": '"
              + hex
              + "' is not a key in hex (an even number of hex digits,"
              + " such as aced0005740003…)");
    }
    return HexFormat.of().parseHex(digits);
  }
}
