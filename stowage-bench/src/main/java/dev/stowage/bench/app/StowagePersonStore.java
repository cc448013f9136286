package dev.stowage.bench.app;

import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Person;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Stowage: {@code /add} is one {@code putAll} of the 100 people and {@code /check} one
 * {@code getAll}, each a single round trip, on the default codec and compression. Entries do not
 * expire, as the seed's did not, so that memory compares like with like.
 */
final class StowagePersonStore implements PersonStore {

  static final String NAME = "stowage";

  private final Stowage stowage;
  private final RedisCache<Long, Person> cache;

  StowagePersonStore(String uri, String keyPrefix) {
    this.stowage = Stowage.builder().redis(uri).commandTimeout(Duration.ofSeconds(60)).build();
    this.cache = stowage.cache("person", Person.class).<Long>keys(String::valueOf).keyPrefix(keyPrefix).noExpiry().build();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.STOWAGE;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "Stowage RedisCache putAll / getAll, one shared Lettuce connection");
    params.put("serializer", "envelope, compact MessagePack, zstd (Stowage's defaults)");
    params.put("commands", "one round trip per 100 people");
    return params;
  }

  @Override
  public void add(List<Person> people) {
    Map<Long, Person> entries = new LinkedHashMap<>(people.size() * 2);
    for (Person person : people) {
      entries.put(person.id(), person);
    }
    cache.putAll(entries);
  }

  /** One asynchronous {@code putAll}: Stowage's own bulk path, one round trip per chunk. */
  @Override
  public CompletionStage<?> load(List<Person> people) {
    Map<Long, Person> entries = new LinkedHashMap<>(people.size() * 2);
    for (Person person : people) {
      entries.put(person.id(), person);
    }
    return cache.async().putAll(entries);
  }

  @Override
  public List<Person> read(long[] ids) {
    List<Long> keys = new ArrayList<>(ids.length);
    for (long id : ids) {
      keys.add(id);
    }
    Map<Long, Person> found = cache.getAll(keys);
    List<Person> people = new ArrayList<>(ids.length);
    for (Long id : keys) {
      people.add(found.get(id));
    }
    return people;
  }

  @Override
  public void close() {
    stowage.close();
  }
}
