package dev.stowage.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The results of one {@code stowage bench} run, in the shape every subcommand writes:
 *
 * <pre>{@code
 * {"bench": "codecs", "quick": true, "env": {...},
 *  "rows": [{"name": "...", "role": "seed|peer|stowage|limit", "params": {...}, "metrics": {...}}]}
 * }</pre>
 *
 * <p>The document is immutable. It is written to {@code <dir>/<bench>.json}.
 *
 * @param bench the subcommand, such as {@code "codecs"}; lower-case letters, digits and dashes
 * @param quick whether the run used the short {@code --quick} settings
 * @param env where it ran, from {@link RunEnvironment}
 * @param rows the measured configurations, in table order
 */
@JsonPropertyOrder({"bench", "quick", "env", "rows"})
public record ResultsDocument(
    String bench, boolean quick, Map<String, Object> env, List<ResultRow> rows) {

  private static final Pattern BENCH_NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /**
   * Copies the collections.
   *
   * @throws IllegalArgumentException if the bench name would not make a plain file name
   */
  public ResultsDocument {
    Objects.requireNonNull(bench, "bench");
    if (!BENCH_NAME.matcher(bench).matches()) {
      throw new IllegalArgumentException(
          "bench name '" + bench + "' must be lower-case letters, digits and dashes");
    }
    env = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(env, "env")));
    rows = List.copyOf(Objects.requireNonNull(rows, "rows"));
  }

  /** The file this document is written to inside {@code directory}: {@code <bench>.json}. */
  public Path fileIn(Path directory) {
    return directory.resolve(bench + ".json");
  }

  /**
   * Writes the document to {@code <directory>/<bench>.json}, creating the directory if needed and
   * replacing an older file in one move, so a reader never sees half a file.
   *
   * @return the file written
   * @throws UncheckedIOException if the directory or file cannot be written
   */
  public Path writeTo(Path directory) {
    Path target = fileIn(directory);
    try {
      AtomicFiles.writeString(target, toJson());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write results to " + target, e);
    }
    return target;
  }

  /** The document as indented JSON. */
  public String toJson() {
    try {
      return MAPPER.writeValueAsString(this) + System.lineSeparator();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot render results of '" + bench + "' as JSON", e);
    }
  }

  /**
   * Reads a document written by {@link #writeTo}.
   *
   * @throws UncheckedIOException if the file cannot be read or is not a results document
   */
  public static ResultsDocument read(Path file) {
    try {
      return MAPPER.readValue(file.toFile(), ResultsDocument.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read results from " + file, e);
    }
  }
}
