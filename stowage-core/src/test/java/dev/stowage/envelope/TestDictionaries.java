package dev.stowage.envelope;

import dev.stowage.internal.compress.ZstdDictionary;
import java.nio.charset.StandardCharsets;

/** Fixed dictionaries for tests and the test vectors of docs/ENVELOPE.md. */
public final class TestDictionaries {
  /** The text of the tiny raw-content dictionary used by the zstd-dict test vector. */
  public static final String TINY_TEXT =
      "{\"id\":,\"title\":\"\",\"author\":\"\",\"content\":\"\",\"tags\":[\"stowage\",\"redis\",\"cache\"]}";

  /** A raw-content zstd dictionary: zstd accepts any bytes as a dictionary. */
  public static final ZstdDictionary TINY =
      ZstdDictionary.of(TINY_TEXT.getBytes(StandardCharsets.UTF_8));

  private TestDictionaries() {}
}
