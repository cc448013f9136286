package dev.stowage.cli.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.PrettyPrinter;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The one JSON layout the commands print: objects and arrays one member per line, indented by a
 * fixed number of spaces, {@code "name": value} with no space before the colon, and empty
 * containers as {@code {}} and {@code []}.
 */
public final class JsonLayout {
  /** The indent when none is given. */
  public static final int DEFAULT_INDENT = 2;

  private static final ObjectMapper MAPPER =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private JsonLayout() {}

  /**
   * A pretty printer indenting by {@code indent} spaces.
   *
   * @throws IllegalArgumentException if {@code indent} is not 0 to 16
   */
  public static PrettyPrinter prettyPrinter(int indent) {
    if (indent < 0 || indent > 16) {
      throw new IllegalArgumentException("--indent must be 0 to 16, got " + indent);
    }
    DefaultIndenter indenter = new DefaultIndenter(" ".repeat(indent), "\n");
    Separators separators =
        Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
            .withObjectEmptySeparator("")
            .withArrayEmptySeparator("");
    return new DefaultPrettyPrinter(separators)
        .withObjectIndenter(indenter)
        .withArrayIndenter(indenter);
  }

  /** A tree as indented text, without a trailing newline. */
  public static String pretty(JsonNode tree) {
    try {
      return MAPPER.writer(prettyPrinter(DEFAULT_INDENT)).writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always writes", e);
    }
  }
}
