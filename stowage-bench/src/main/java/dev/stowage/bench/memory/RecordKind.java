package dev.stowage.bench.memory;

import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Person;
import dev.stowage.samples.Samples;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/** The records {@code bench memory} stores. */
public enum RecordKind {
  /** The first seed's board record; the seed stored 120,000 of them. */
  BOARD("board", BoardRecord.class, 120_000, 20_000),
  /**
   * The fifth seed's person; the seed stored 15 million, this stores fewer and compares per record.
   */
  PERSON("person", Person.class, 1_000_000, 100_000);

  private final String cliName;
  private final Class<?> type;
  private final int defaultCount;
  private final int quickCount;

  RecordKind(String cliName, Class<?> type, int defaultCount, int quickCount) {
    this.cliName = cliName;
    this.type = type;
    this.defaultCount = defaultCount;
    this.quickCount = quickCount;
  }

  /** The name on the command line and in results. */
  public String cliName() {
    return cliName;
  }

  /** The record class. */
  public Class<?> type() {
    return type;
  }

  /** How many records a full run stores. */
  public int defaultCount() {
    return defaultCount;
  }

  /** How many records a {@code --quick} run stores. */
  public int quickCount() {
    return quickCount;
  }

  /** The first {@code n} deterministic records of this kind. */
  List<?> records(int n) {
    IntFunction<List<?>> make = this == BOARD ? Samples::boards : Samples::people;
    return make.apply(n);
  }

  /** The record's id, for its key in the key-per-record layout. */
  @SuppressWarnings("unchecked")
  <T> ToLongFunction<T> idOf() {
    return this == BOARD ? r -> ((BoardRecord) r).score() : r -> ((Person) r).id();
  }

  /**
   * The kind with this name.
   *
   * @throws IllegalArgumentException naming the valid choices
   */
  public static RecordKind forName(String name) {
    for (RecordKind kind : values()) {
      if (kind.cliName.equalsIgnoreCase(name.strip())) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown records '"
            + name
            + "'; choose from "
            + Arrays.stream(values()).map(RecordKind::cliName).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return cliName;
  }
}
