package dev.stowage.cli.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.cli.inspect.Terminal;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stowage json}: validate and format JSON, and convert between JSON and MessagePack, all
 * streaming. Exit codes: 0 when the input is one well-formed value, 1 when it is not (the error
 * names the line and column and shows the line with a caret), 2 for a usage error.
 */
@Command(
    name = "json",
    mixinStandardHelpOptions = true,
    description =
        "Validate and format JSON, convert JSON to and from MessagePack; streaming, any input size.",
    subcommands = {JsonCommand.Validate.class, JsonCommand.Format.class})
public final class JsonCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing subcommand: choose one of " + spec.subcommands().keySet());
  }

  /** The options both subcommands take. */
  abstract static class Input {
    @Spec CommandSpec spec;

    @Parameters(
        paramLabel = "FILE",
        arity = "0..1",
        defaultValue = "-",
        description = "The input file, or - for standard input (default: -).")
    String file;

    @Option(
        names = "--from",
        paramLabel = "FORMAT",
        defaultValue = "json",
        description = "The input's format: json or msgpack (default: ${DEFAULT-VALUE}).")
    JsonStreams.Format from;

    @Option(
        names = "--max-depth",
        paramLabel = "N",
        defaultValue = "" + JsonStreams.DEFAULT_MAX_DEPTH,
        description = "Reject nesting deeper than N levels (default: ${DEFAULT-VALUE}).")
    int maxDepth;

    InputStream open() throws IOException {
      if ("-".equals(file)) {
        return System.in;
      }
      try {
        return Files.newInputStream(Path.of(file));
      } catch (NoSuchFileException e) {
        throw new ParameterException(spec.commandLine(), "no such file: " + file);
      }
    }

    String name() {
      return "-".equals(file) ? "<stdin>" : file;
    }

    void checkDepth() {
      if (maxDepth < 1 || maxDepth > JsonStreams.MAX_MAX_DEPTH) {
        throw new ParameterException(
            spec.commandLine(),
            "--max-depth must be 1 to " + JsonStreams.MAX_MAX_DEPTH + ", got " + maxDepth);
      }
    }

    int fail(String command, Exception e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          e instanceof JsonInputException input
              ? input.report()
              : "stowage json " + command + ": " + e.getMessage());
      err.flush();
      return 1;
    }
  }

  /**
   * {@code stowage json validate}. With {@code --json} the verdict is one line of JSON on standard
   * output, and nothing is written to standard error: {@code {"valid":true,"source":…,"format":…,
   * "bytes":…,"tokens":…,"depth":…}} (exit code 0), or {@code {"valid":false,"source":…,"format":…,
   * "line":…,"column":…,"offset":…,"message":…}} (exit code 1), where {@code line} and {@code
   * column} count from 1 (columns in characters) and are left out for MessagePack, which has no
   * lines, {@code offset} is the byte offset from 0, and {@code message} is the reason without the
   * position. A failure to read the input is not a verdict: it is reported on standard error with
   * exit code 1 and no JSON.
   */
  @Command(
      name = "validate",
      mixinStandardHelpOptions = true,
      description = "Check that the input is exactly one well-formed JSON (or MessagePack) value.")
  static final class Validate extends Input implements Callable<Integer> {
    @Option(
        names = "--json",
        description =
            "Print the verdict as one line of JSON on standard output"
                + " (valid, and the line, column, byte offset and message of an error).")
    boolean json;

    @Override
    public Integer call() {
      checkDepth();
      PrintWriter out = spec.commandLine().getOut();
      String format = from == JsonStreams.Format.JSON ? "JSON" : "MessagePack";
      try (InputStream in = open()) {
        JsonStreams.Summary summary = JsonStreams.copy(in, name(), from, null, maxDepth);
        if (json) {
          out.println(
              verdict(true)
                  .put("bytes", summary.bytes())
                  .put("tokens", summary.tokens())
                  .put("depth", summary.depth()));
        } else {
          out.printf(
              "%s: valid %s, %,d bytes, %,d tokens, depth %d%n",
              name(), format, summary.bytes(), summary.tokens(), summary.depth());
        }
        out.flush();
        return 0;
      } catch (JsonInputException e) {
        if (!json) {
          return fail("validate", e);
        }
        ObjectNode verdict = verdict(false);
        if (e.line() > 0) {
          verdict.put("line", e.line()).put("column", e.column());
        }
        out.println(verdict.put("offset", e.byteOffset()).put("message", e.reason()));
        out.flush();
        return 1;
      } catch (IOException e) {
        return fail("validate", e);
      }
    }

    private ObjectNode verdict(boolean valid) {
      return JsonNodeFactory.instance
          .objectNode()
          .put("valid", valid)
          .put("source", name())
          .put("format", from.name().toLowerCase(Locale.ROOT));
    }
  }

  /** {@code stowage json format}. */
  @Command(
      name = "format",
      mixinStandardHelpOptions = true,
      description = "Indent or minify JSON, or convert it to or from MessagePack (--to, --from).")
  static final class Format extends Input implements Callable<Integer> {
    @Option(
        names = "--indent",
        paramLabel = "N",
        defaultValue = "" + JsonLayout.DEFAULT_INDENT,
        description = "Spaces per level (default: ${DEFAULT-VALUE}).")
    int indent;

    @Option(names = "--minify", description = "Write JSON without any whitespace.")
    boolean minify;

    @Option(
        names = "--to",
        paramLabel = "FORMAT",
        defaultValue = "json",
        description = "The output's format: json or msgpack (default: ${DEFAULT-VALUE}).")
    JsonStreams.Format to;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        description =
            "Write here instead of standard output (needed for MessagePack on a terminal).")
    Path out;

    @Override
    public Integer call() {
      checkDepth();
      if (indent < 0 || indent > 16) {
        throw new ParameterException(spec.commandLine(), "--indent must be 0 to 16, got " + indent);
      }
      if (to == JsonStreams.Format.MSGPACK && out == null && Terminal.stdoutIsTerminal()) {
        throw new ParameterException(
            spec.commandLine(),
            "MessagePack is binary: pass --out FILE or pipe standard output into a file");
      }
      try (InputStream in = open()) {
        if (out != null) {
          try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(out), 1 << 16);
              JsonGenerator generator = generator(JsonStreams.generator(to, file, maxDepth))) {
            JsonStreams.copy(in, name(), from, generator, maxDepth);
            newline(generator);
          }
        } else if (to == JsonStreams.Format.MSGPACK) {
          OutputStream stdout = new BufferedOutputStream(System.out, 1 << 16);
          JsonGenerator generator = JsonStreams.generator(to, stdout, maxDepth);
          generator.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
          JsonStreams.copy(in, name(), from, generator, maxDepth);
          generator.close();
          stdout.flush();
        } else {
          Writer writer = spec.commandLine().getOut();
          JsonGenerator generator =
              generator(JsonStreams.jsonFactory(maxDepth).createGenerator(writer));
          generator.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
          if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset())
              && !StandardCharsets.UTF_16.equals(Charset.defaultCharset())) {
            // the terminal's charset may not hold every character: \\u escapes keep the JSON exact
            generator.enable(JsonGenerator.Feature.ESCAPE_NON_ASCII);
          }
          JsonStreams.copy(in, name(), from, generator, maxDepth);
          newline(generator);
          generator.close();
          writer.flush();
        }
        return 0;
      } catch (JsonInputException | IOException e) {
        return fail("format", e);
      }
    }

    private JsonGenerator generator(JsonGenerator generator) {
      if (to == JsonStreams.Format.JSON && !minify) {
        generator.setPrettyPrinter(JsonLayout.prettyPrinter(indent));
      }
      return generator;
    }

    private void newline(JsonGenerator generator) throws IOException {
      if (to == JsonStreams.Format.JSON) {
        generator.writeRaw('\n');
      }
      generator.flush();
    }
  }
}
