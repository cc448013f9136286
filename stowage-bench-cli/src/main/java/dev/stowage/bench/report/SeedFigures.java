package dev.stowage.bench.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The figures the seeds published, which the report prints next to each table: numbers only, each
 * under the id of the seed table it comes from ({@code T1} ... {@code T6}). They are read from the
 * class path resource {@value #RESOURCE}, never from the seeds' documents at run time.
 *
 * @param source where the numbers come from
 * @param tables the seed tables, in order
 */
public record SeedFigures(String source, List<SeedTable> tables) {

  /** The class path resource that holds the figures. */
  public static final String RESOURCE = "/dev/stowage/bench/report/seed-figures.json";

  /** Copies the list. */
  public SeedFigures {
    Objects.requireNonNull(source, "source");
    tables = List.copyOf(tables);
  }

  /**
   * The figures in {@value #RESOURCE}.
   *
   * @throws UncheckedIOException if the resource is missing or malformed
   */
  public static SeedFigures load() {
    ObjectMapper mapper =
        new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    try (InputStream in = SeedFigures.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new UncheckedIOException(
            new IOException("resource " + RESOURCE + " is missing from the class path"));
      }
      return mapper.readValue(in, SeedFigures.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the seed figures in " + RESOURCE, e);
    }
  }

  /** The seed table with this id, such as {@code "T2"}. */
  public Optional<SeedTable> table(String id) {
    return tables.stream().filter(table -> table.id().equals(id)).findFirst();
  }

  /**
   * One seed table.
   *
   * @param id the table's id, such as {@code "T2"}
   * @param seed the seed that published it, such as {@code "001"}
   * @param title a short title
   * @param figures its numbers
   */
  public record SeedTable(String id, String seed, String title, List<Figure> figures) {
    /** Copies the list. */
    public SeedTable {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(seed, "seed");
      Objects.requireNonNull(title, "title");
      figures = List.copyOf(figures);
    }
  }

  /**
   * One published number.
   *
   * @param label what was measured
   * @param value the number
   * @param unit its unit; may be empty
   */
  public record Figure(String label, double value, String unit) {
    /** Checks that no argument is {@code null}. */
    public Figure {
      Objects.requireNonNull(label, "label");
      Objects.requireNonNull(unit, "unit");
    }
  }
}
