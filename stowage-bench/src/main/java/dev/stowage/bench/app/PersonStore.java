package dev.stowage.bench.app;

import dev.stowage.bench.RowRole;
import dev.stowage.samples.Person;
import java.util.List;
import java.util.Map;

/** One row of table T5: how an app stores and reads back people. Thread-safe. */
interface PersonStore extends AutoCloseable {

  String name();

  RowRole role();

  Map<String, Object> params();

  /** The seed's {@code /add}: stores every person under {@code keyPrefix + id}. */
  void add(List<Person> people);

  /** The seed's {@code /check}: reads the people with these ids back; a missing one is {@code null}. */
  List<Person> read(long[] ids);

  @Override
  void close();
}
