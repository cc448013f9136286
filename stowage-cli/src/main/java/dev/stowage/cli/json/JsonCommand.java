package dev.stowage.cli.json;

import com.fasterxml.jackson.core.JsonGenerator;
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
@Command(name = "json", mixinStandardHelpOptions = true,
    description = "Validate and format JSON, convert JSON to and from MessagePack; streaming, any input size.",
    subcommands = {JsonCommand.Validate.class, JsonCommand.Format.class})
public final class JsonCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing subcommand: choose one of " + spec.subcommands().keySet());
  }

  /** The options both subcommands take. */
  abstract static class Input {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "0..1", defaultValue = "-",
        description = "The input file, or - for standard input (default: -).")
    String file;

    @Option(names = "--from", paramLabel = "FORMAT", defaultValue = "json",
        description = "The input's format: json or msgpack (default: ${DEFAULT-VALUE}).")
    JsonStreams.Format from;

    @Option(names = "--max-depth", paramLabel = "N", defaultValue = "" + JsonStreams.DEFAULT_MAX_DEPTH,
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
        throw new ParameterException(spec.commandLine(), "--max-depth must be 1 to " + JsonStreams.MAX_MAX_DEPTH
            + ", got " + maxDepth);
      }
    }

    int fail(String command, Exception e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(e instanceof JsonInputException input ? input.report() : "stowage json " + command + ": " + e.getMessage());
      err.flush();
      return 1;
    }
  }

  /** {@code stowage json validate}. */
  @Command(name = "validate", mixinStandardHelpOptions = true,
      description = "Check that the input is exactly one well-formed JSON (or MessagePack) value.")
  static final class Validate extends Input implements Callable<Integer> {
    @Override
    public Integer call() {
      checkDepth();
      try (InputStream in = open()) {
        JsonStreams.Summary summary = JsonStreams.copy(in, name(), from, null, maxDepth);
        spec.commandLine().getOut().printf("%s: valid %s, %,d bytes, %,d tokens, depth %d%n", name(),
            from == JsonStreams.Format.JSON ? "JSON" : "MessagePack", summary.bytes(), summary.tokens(), summary.depth());
        spec.commandLine().getOut().flush();
        return 0;
      } catch (JsonInputException e) {
        return fail("validate", e);
      } catch (IOException e) {
        return fail("validate", e);
      }
    }
  }

  /** {@code stowage json format}. */
  @Command(name = "format", mixinStandardHelpOptions = true,
      description = "Indent or minify JSON, or convert it to or from MessagePack (--to, --from).")
  static final class Format extends Input implements Callable<Integer> {
    @Option(names = "--indent", paramLabel = "N", defaultValue = "" + JsonLayout.DEFAULT_INDENT,
        description = "Spaces per level (default: ${DEFAULT-VALUE}).")
    int indent;

    @Option(names = "--minify", description = "Write JSON without any whitespace.")
    boolean minify;

    @Option(names = "--to", paramLabel = "FORMAT", defaultValue = "json",
        description = "The output's format: json or msgpack (default: ${DEFAULT-VALUE}).")
    JsonStreams.Format to;

    @Option(names = "--out", paramLabel = "FILE",
        description = "Write here instead of standard output (needed for MessagePack on a terminal).")
    Path out;

    @Override
    public Integer call() {
      checkDepth();
      if (indent < 0 || indent > 16) {
        throw new ParameterException(spec.commandLine(), "--indent must be 0 to 16, got " + indent);
      }
      if (to == JsonStreams.Format.MSGPACK && out == null && System.console() != null) {
        throw new ParameterException(spec.commandLine(),
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
          JsonGenerator generator = generator(JsonStreams.jsonFactory(maxDepth).createGenerator(writer));
          generator.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
          if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset()) && !StandardCharsets.UTF_16.equals(Charset.defaultCharset())) {
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
