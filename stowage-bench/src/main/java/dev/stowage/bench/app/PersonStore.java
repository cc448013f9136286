package dev.stowage.bench.app;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Person;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/** One row of table T5: how an app stores and reads back people. Thread-safe. */
interface PersonStore extends AutoCloseable {

  String name();

  RowRole role();

  Map<String, Object> params();

  /** The seed's {@code /add}: stores every person under {@code keyPrefix + id}. */
  void add(List<Person> people);

  /**
   * Stores every person as {@link #add} does, in bulk for the full-scale memory measurement: the
   * same keys and values, sent in one pipelined batch, returning before Redis has answered.
   *
   * @return a stage that completes when Redis has stored them all
   */
  CompletionStage<?> load(List<Person> people);

  /**
   * The seed's {@code /check}: reads the people with these ids back; a missing one is {@code null}.
   */
  List<Person> read(long[] ids);

  /** How many people Redis holds under {@code prefix}: by default, the keys there. */
  default long stored(BenchRedis redis, String prefix) {
    return redis.countKeys(prefix);
  }

  @Override
  void close();
}
