package dev.stowage.envelope;

import dev.stowage.Codec;
import dev.stowage.compress.Compression;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.envelope.EnvelopeCodecBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

/**
 * The test vectors of docs/ENVELOPE.md. Each is committed as {@code envelope/<name>.bin} under the
 * test resources. After a deliberate change (a new vector, or a compression library whose output
 * changed), regenerate the files and the hex blocks with {@link #main}.
 */
public final class EnvelopeVectors {
  /** One vector: how it is written, and the value it holds. */
  public record Vector(
      String name, String description, EnvelopeCodec<String> writer, String value) {
    /** The committed bytes. */
    public byte[] golden() {
      try (InputStream in =
          EnvelopeVectors.class.getResourceAsStream("/envelope/" + name + ".bin")) {
        if (in == null) {
          throw new IllegalStateException("missing golden file envelope/" + name + ".bin");
        }
        return in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static final String RECORD = "{\"id\":42,\"title\":\"hello\"}";
  static final String REPEATED =
      "stowage keeps values in redis; stowage keeps values in redis; "
          + "stowage keeps values in redis; stowage keeps values in redis.";
  static final String BOARD =
      "{\"id\":7,\"title\":\"stowage\",\"author\":\"kim\",\"content\":\"hi\","
          + "\"tags\":[\"stowage\",\"redis\",\"cache\"]}";

  private EnvelopeVectors() {}

  /** Every vector, in the order of the document. */
  public static List<Vector> all() {
    return List.of(
        new Vector(
            "string-none",
            "codec string (10), no compression",
            writer(TestCodecs.UTF8, Compression.none(), -1),
            RECORD),
        new Vector(
            "string-none-schema",
            "codec string (10), no compression, schema version 300",
            writer(TestCodecs.UTF8, Compression.none(), 300),
            RECORD),
        new Vector(
            "string-lz4",
            "codec string (10), lz4",
            writer(TestCodecs.UTF8, Compression.lz4().minSize(0), -1),
            REPEATED),
        new Vector(
            "string-zstd",
            "codec string (10), zstd level 3",
            writer(TestCodecs.UTF8, Compression.zstd(3).minSize(0), -1),
            REPEATED),
        new Vector(
            "string-zstd-dict",
            "codec string (10), zstd level 3 with the tiny dictionary, frame with its magic",
            writer(
                TestCodecs.UTF8,
                CompressionAccess.zstd(TestDictionaries.TINY, 3).magicless(false).minSize(0),
                -1),
            BOARD),
        new Vector(
            "utf16-zstd-dict-schema",
            "codec user-128 (UTF-16BE, a user codec), zstd level 3 with the tiny dictionary, frame with its magic,"
                + " schema version 2",
            writer(
                TestCodecs.UTF16,
                CompressionAccess.zstd(TestDictionaries.TINY, 3).magicless(false).minSize(0),
                2),
            BOARD),
        new Vector(
            "string-zstd-dict-magicless",
            "codec string (10), zstd level 3 with the tiny dictionary, frame without its magic",
            writer(
                TestCodecs.UTF8, CompressionAccess.zstd(TestDictionaries.TINY, 3).minSize(0), -1),
            BOARD));
  }

  /** A reader of every vector. */
  public static EnvelopeCodec<String> reader() {
    return EnvelopeCodec.builder(TestCodecs.UTF8)
        .alsoRead(TestCodecs.UTF16)
        .dictionaries(DictionaryResolver.of(TestDictionaries.TINY))
        .build();
  }

  private static EnvelopeCodec<String> writer(
      Codec<String> codec, Compression compression, int schemaVersion) {
    EnvelopeCodecBuilder<String> builder = EnvelopeCodec.builder(codec).compression(compression);
    if (schemaVersion >= 0) {
      builder.schemaVersion(schemaVersion);
    }
    return builder.build();
  }

  /** Hex as the document writes it: lower case, bytes separated by spaces, 16 to a line. */
  public static String documentHex(byte[] bytes) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < bytes.length; i++) {
      text.append(i == 0 ? "" : i % 16 == 0 ? "\n" : " ")
          .append(HexFormat.of().toHexDigits(bytes[i]));
    }
    return text.toString();
  }

  /** Writes every vector to {@code args[0]} as {@code <name>.bin} and prints the hex blocks. */
  public static void main(String[] args) throws IOException {
    Path directory = Path.of(args[0]);
    Files.createDirectories(directory);
    for (Vector vector : all()) {
      byte[] bytes = vector.writer().encode(vector.value());
      Files.write(directory.resolve(vector.name() + ".bin"), bytes);
      System.out.println(
          "### Vector `"
              + vector.name()
              + "`\n\n"
              + vector.description()
              + "; "
              + bytes.length
              + " bytes; header "
              + vector.writer().header(bytes).describe()
              + "\n\n```hex\n"
              + documentHex(bytes)
              + "\n```\n");
    }
  }
}
