package dev.stowage.cli.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.cli.StowageCli;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class JsonCommandUnitTests {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = StowageCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
  }

  private Path file(String name, byte[] content) throws IOException {
    return Files.write(dir.resolve(name), content);
  }

  @Test
  void formatIndentsMinifiesAndKeepsNumbersAsSpelled() throws IOException {
    Path input =
        file(
            "in.json",
            "{\"é\":1.50000000000000000001,\"big\":123456789012345678901234567890,"
                + "\"e\":1E+3,\"x\":[],\"y\":{},\"z\":[true,{\"q\":null}]}");

    assertThat(run("json", "format", "--indent", "4", input.toString())).isZero();
    assertThat(out.toString())
        .isEqualTo(
            """
        {
            "é": 1.50000000000000000001,
            "big": 123456789012345678901234567890,
            "e": 1E+3,
            "x": [],
            "y": {},
            "z": [
                true,
                {
                    "q": null
                }
            ]
        }
        """);

    out.getBuffer().setLength(0);
    assertThat(run("json", "format", "--minify", input.toString())).isZero();
    assertThat(out.toString())
        .isEqualTo(
            "{\"é\":1.50000000000000000001,\"big\":123456789012345678901234567890,"
                + "\"e\":1E+3,\"x\":[],\"y\":{},\"z\":[true,{\"q\":null}]}\n");
  }

  @Test
  void validateSaysWhatItRead() throws IOException {
    Path input = file("ok.json", "{\"a\": [1, {\"b\": [2]}]}");

    assertThat(run("json", "validate", input.toString())).isZero();
    assertThat(out.toString()).isEqualTo(input + ": valid JSON, 22 bytes, 12 tokens, depth 4\n");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void anUnexpectedCharacterIsReportedAtItsLineAndColumnWithACaret() throws IOException {
    Path input = file("bad.json", "{\n  \"a\": 1,\n  \"b\": {\"c\": 2,}\n}\n");

    assertThat(run("json", "validate", input.toString())).isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo(
            input
                + ":3:16: unexpected character '}': was expecting double-quote to start field name\n"
                + "  \"b\": {\"c\": 2,}\n"
                + "               ^\n");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void errorsCountColumnsInCharactersNotBytes() throws IOException {
    Path input = file("wide.json", "[\"héllo wörld\", tru]");

    assertThat(run("json", "validate", input.toString())).isEqualTo(1);
    String[] lines = err.toString().split("\n");
    assertThat(lines[0]).startsWith(input + ":1:17: unrecognized token 'tru'");
    assertThat(lines[1]).isEqualTo("[\"héllo wörld\", tru]");
    assertThat(lines[2]).isEqualTo(" ".repeat(16) + "^");
  }

  @Test
  void aMismatchedCloseAndATruncatedDocumentAndASecondValueAreErrors() throws IOException {
    Path mismatched = file("m.json", "[1,\n 2}");
    assertThat(run("json", "validate", mismatched.toString())).isEqualTo(1);
    assertThat(err.toString())
        .startsWith(
            mismatched
                + ":2:3: unexpected close marker '}': expected ']'"
                + " (for Array starting at line 1, column 1)\n 2}\n  ^\n");

    err.getBuffer().setLength(0);
    Path truncated = file("t.json", "{\"a\": [1, 2");
    assertThat(run("json", "validate", truncated.toString())).isEqualTo(1);
    assertThat(err.toString()).startsWith(truncated + ":1:12: unexpected end-of-input");

    err.getBuffer().setLength(0);
    Path two = file("two.json", "{}\n  {}");
    assertThat(run("json", "validate", two.toString())).isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo(
            two
                + ":2:3: more than one value: another one starts here after the first ended\n"
                + "  {}\n  ^\n");

    err.getBuffer().setLength(0);
    Path empty = file("empty.json", "  \n");
    assertThat(run("json", "validate", empty.toString())).isEqualTo(1);
    assertThat(err.toString()).contains("no value: the input is empty");
  }

  @Test
  void invalidUtf8IsAnErrorAtTheBrokenSequence() throws IOException {
    byte[] bytes = "{\"a\": 1,\n \"b\": \"caf\u0000 ok\"}".getBytes(StandardCharsets.ISO_8859_1);
    bytes[19] = (byte) 0xE9; // "caf" then a lone Latin-1 é: a UTF-8 lead byte followed by a space
    Path input = file("latin1.json", bytes);

    assertThat(run("json", "validate", input.toString())).isEqualTo(1);
    String[] lines = err.toString().split("\n");
    assertThat(lines[0])
        .isEqualTo(
            input
                + ":2:11: invalid UTF-8 middle byte 0x20 (in the sequence starting with byte 0xe9)");
    assertThat(lines[2]).isEqualTo(" ".repeat(10) + "^");
  }

  @Test
  void deepNestingStopsAtTheLimitWithoutOverflowingTheStack() throws IOException {
    Path deep = file("deep.json", "[".repeat(100_000) + "]".repeat(100_000));

    assertThat(run("json", "validate", deep.toString())).isEqualTo(1);
    assertThat(err.toString())
        .startsWith(
            deep
                + ":1:1001: nesting deeper than 1000 levels (the limit; raise it with --max-depth)\n");

    out.getBuffer().setLength(0);
    assertThat(run("json", "validate", "--max-depth", "100000", deep.toString())).isZero();
    assertThat(out.toString()).contains("depth 100000");

    Path minified = dir.resolve("deep-out.json");
    assertThat(
            run(
                "json",
                "format",
                "--minify",
                "--max-depth",
                "100000",
                "--out",
                minified.toString(),
                deep.toString()))
        .isZero();
    assertThat(Files.readString(minified))
        .isEqualTo("[".repeat(100_000) + "]".repeat(100_000) + "\n");

    assertThat(run("json", "validate", "--max-depth", "0", deep.toString())).isEqualTo(2);
  }

  @Test
  void messagePackRoundTripKeepsTheTree() throws IOException {
    String json =
        "{\"id\":42,\"name\":\"stowage ✓\",\"ratio\":0.25,\"neg\":-7,\"big\":9007199254740993,"
            + "\"ok\":true,\"none\":null,\"tags\":[\"a\",\"b\",[]],\"nested\":{\"deep\":{\"x\":[1,2,3]}}}";
    Path input = file("in.json", json);
    Path packed = dir.resolve("in.msgpack");

    assertThat(
            run("json", "format", "--to", "msgpack", "--out", packed.toString(), input.toString()))
        .isZero();
    byte[] msgpack = Files.readAllBytes(packed);
    assertThat(msgpack[0] & 0xFF).isEqualTo(0x89); // a fixmap of 9 entries
    assertThat(msgpack.length).isLessThan(json.length());

    assertThat(run("json", "format", "--from", "msgpack", "--minify", packed.toString())).isZero();
    assertThat(MAPPER.readTree(out.toString())).isEqualTo(MAPPER.readTree(json));

    out.getBuffer().setLength(0);
    assertThat(run("json", "validate", "--from", "msgpack", packed.toString())).isZero();
    assertThat(out.toString()).contains("valid MessagePack");

    Path truncated = file("cut.msgpack", Arrays.copyOf(msgpack, msgpack.length - 3));
    assertThat(run("json", "validate", "--from", "msgpack", truncated.toString())).isEqualTo(1);
    assertThat(err.toString()).contains(truncated + ": byte ").contains("unexpected end of input");
  }

  @Test
  void validateWithJsonPrintsTheVerdictAsOneLineOfJson() throws IOException {
    Path ok = file("ok.json", "{\"a\": [1, {\"b\": [2]}]}");
    assertThat(run("json", "validate", "--json", ok.toString())).isZero();
    assertThat(MAPPER.readTree(out.toString()))
        .isEqualTo(
            MAPPER.readTree(
                "{\"valid\":true,\"source\":"
                    + MAPPER.writeValueAsString(ok.toString())
                    + ",\"format\":\"json\",\"bytes\":22,\"tokens\":12,\"depth\":4}"));
    assertThat(out.toString()).endsWith("}\n").doesNotContain("\n ");

    out.getBuffer().setLength(0);
    Path bad = file("bad.json", "{\n  \"a\": 1,\n  \"b\": {\"c\": 2,}\n}\n");
    assertThat(run("json", "validate", "--json", bad.toString())).isEqualTo(1);
    JsonNode verdict = MAPPER.readTree(out.toString());
    assertThat(verdict.get("valid").asBoolean()).isFalse();
    assertThat(verdict.get("line").asInt()).isEqualTo(3);
    assertThat(verdict.get("column").asInt()).isEqualTo(16);
    assertThat(verdict.get("offset").asLong())
        .isEqualTo(27); // "{\n" and "  \"a\": 1,\n" are 12 bytes, then 15 more
    assertThat(verdict.get("message").asText())
        .isEqualTo("unexpected character '}': was expecting double-quote to start field name");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void validateWithJsonCountsColumnsInCharactersAndOffsetsInBytes() throws IOException {
    Path wide = file("wide.json", "[\"héllo wörld\",\n \"ünïcode\", tru]");
    assertThat(run("json", "validate", "--json", wide.toString())).isEqualTo(1);
    JsonNode verdict = MAPPER.readTree(out.toString());
    assertThat(verdict.get("line").asInt()).isEqualTo(2);
    assertThat(verdict.get("column").asInt()).isEqualTo(13);
    // line 1 is 18 bytes with its newline (é and ö take two each); " \"ünïcode\", " is 14 bytes
    assertThat(verdict.get("offset").asLong()).isEqualTo(18 + 14);
    assertThat(verdict.get("message").asText()).startsWith("unrecognized token 'tru'");
  }

  @Test
  void validateWithJsonLeavesOutLinesForMessagePack() throws IOException {
    Path packed =
        file("cut.msgpack", new byte[] {(byte) 0x82, (byte) 0xA1, 'a', 0x01, (byte) 0xA1});
    assertThat(run("json", "validate", "--json", "--from", "msgpack", packed.toString()))
        .isEqualTo(1);
    JsonNode verdict = MAPPER.readTree(out.toString());
    assertThat(verdict.get("valid").asBoolean()).isFalse();
    assertThat(verdict.get("format").asText()).isEqualTo("msgpack");
    assertThat(verdict.has("line")).isFalse();
    assertThat(verdict.has("column")).isFalse();
    assertThat(verdict.get("offset").asLong()).isEqualTo(5);
    assertThat(verdict.get("message").asText())
        .isEqualTo("unexpected end of input inside a MessagePack value");
  }

  @Test
  void formatStopsAtInvalidUtf8WithItsPosition() throws IOException {
    byte[] bytes = "{\"a\": 1,\n \"b\": \"caf\u0000 ok\"}".getBytes(StandardCharsets.ISO_8859_1);
    bytes[19] = (byte) 0xE9; // a lone Latin-1 é: a UTF-8 lead byte followed by a space
    Path input = file("latin1.json", bytes);

    assertThat(run("json", "format", input.toString())).isEqualTo(1);
    String[] lines = err.toString().split("\n");
    assertThat(lines[0])
        .isEqualTo(
            input
                + ":2:11: invalid UTF-8 middle byte 0x20 (in the sequence starting with byte 0xe9)");
    assertThat(lines[1]).isEqualTo(" \"b\": \"caf? ok\"}");
    assertThat(lines[2]).isEqualTo(" ".repeat(10) + "^");
    assertThat(out.toString()).doesNotContain("caf");

    Path packed = dir.resolve("latin1.msgpack");
    assertThat(
            run("json", "format", "--to", "msgpack", "--out", packed.toString(), input.toString()))
        .isEqualTo(1);
    assertThat(err.toString()).contains(input + ":2:11: invalid UTF-8 middle byte 0x20");
  }

  @Test
  void messagePackGoesToARedirectedStandardOutputAsBytes() throws Exception {
    Path input =
        file("in.json", "{\"id\":42,\"name\":\"stowage ✓\",\"tags\":[\"a\",\"b\"],\"ratio\":0.25}");
    Path viaOut = dir.resolve("via-out.msgpack");
    assertThat(
            run("json", "format", "--to", "msgpack", "--out", viaOut.toString(), input.toString()))
        .isZero();

    // a separate JVM whose standard output is a file: not a terminal, so the bytes are written
    // there
    Path redirected = dir.resolve("redirected.msgpack");
    Path errors = dir.resolve("errors.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                StowageCli.class.getName(),
                "json",
                "format",
                "--to",
                "msgpack",
                input.toString())
            .redirectOutput(redirected.toFile())
            .redirectError(errors.toFile())
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(Files.readString(errors)).isZero();
    assertThat(Files.readAllBytes(redirected)).isEqualTo(Files.readAllBytes(viaOut));
    assertThat(Files.readAllBytes(redirected)[0] & 0xFF).isEqualTo(0x84); // a fixmap of 4 entries
    assertThat(Files.readString(errors)).isEmpty();
  }

  /** A JSON array of {@code count} objects, generated as it is read: never in memory as a whole. */
  static final class GeneratedJson extends InputStream {
    private final int count;
    private final CRC32 crc = new CRC32();
    private int next;
    private byte[] chunk = "[".getBytes(StandardCharsets.US_ASCII);
    private int position;
    private long size;

    GeneratedJson(int count) {
      this.count = count;
    }

    private boolean refill() {
      if (next > count) {
        return false;
      }
      String text =
          next == count
              ? "]"
              : (next == 0 ? "" : ",")
                  + "{\"id\":"
                  + next
                  + ",\"name\":\"item-"
                  + next
                  + "\",\"price\":"
                  + (next % 1000)
                  + ".25,\"tags\":[\"redis\",\"cache\"]}";
      next++;
      chunk = text.getBytes(StandardCharsets.US_ASCII);
      position = 0;
      return true;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      if (length == 0) {
        return 0;
      }
      while (position == chunk.length) {
        if (!refill()) {
          return -1;
        }
      }
      int n = Math.min(length, chunk.length - position);
      System.arraycopy(chunk, position, buffer, offset, n);
      crc.update(chunk, position, n);
      position += n;
      size += n;
      return n;
    }
  }

  @Test
  void aFiftyMegabyteStreamIsValidatedInProcessFromAStreamingSource() {
    GeneratedJson source = new GeneratedJson(700_000);
    InputStream stdin = System.in;
    try {
      System.setIn(source);
      assertThat(run("json", "validate", "-")).isZero();
    } finally {
      System.setIn(stdin);
    }
    assertThat(source.size).isGreaterThan(50_000_000L);
    // per object: { id name price tags [ redis cache ] } and 4 field names = 13 tokens; plus the
    // outer array
    assertThat(out.toString())
        .isEqualTo(
            String.format(
                "<stdin>: valid JSON, %,d bytes, %,d tokens, depth 3%n",
                source.size, 700_000L * 13 + 2));
  }

  @Test
  void aFiftyMegabytePipeIsFormattedByAJvmWithA32MegabyteHeap() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx32m",
                "-cp",
                System.getProperty("java.class.path"),
                StowageCli.class.getName(),
                "json",
                "format",
                "--minify",
                "-"));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    GeneratedJson source = new GeneratedJson(700_000);
    Thread feeder =
        new Thread(
            () -> {
              try (OutputStream stdin = process.getOutputStream()) {
                source.transferTo(stdin);
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });
    feeder.start();
    CRC32 crc = new CRC32();
    long size = 0;
    try (InputStream stdout = process.getInputStream()) {
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = stdout.read(buffer)) >= 0; ) {
        crc.update(buffer, 0, n);
        size += n;
      }
    }
    feeder.join();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
    assertThat(source.size).isGreaterThan(50_000_000L);
    // minifying minified JSON gives the same bytes and a newline
    assertThat(size).isEqualTo(source.size + 1);
    source.crc.update('\n');
    assertThat(crc.getValue()).isEqualTo(source.crc.getValue());
  }
}
