package dev.stowage.bench.app;

import dev.stowage.CacheLayout;
import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Person;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Stowage: {@code /add} is one {@code putAll} of the 100 people and {@code /check} one {@code
 * getAll}, each a single round trip, on the default codec and compression. Entries do not expire,
 * as the seed's did not, so that memory compares like with like.
 */
final class StowagePersonStore implements PersonStore {

  static final String NAME = "stowage";

  /** The same with {@link CacheLayout#packed(long)}: people as fields of hashes. */
  static final String PACKED = "stowage-packed";

  private final Stowage stowage;
  private final RedisCache<Long, Person> cache;
  private final @Nullable CacheLayout layout;

  /**
   * @param packedFor with the packed layout, the people it is sized for; 0 for a key per person
   */
  StowagePersonStore(String uri, String keyPrefix, long packedFor) {
    this.stowage = Stowage.builder().redis(uri).commandTimeout(Duration.ofSeconds(60)).build();
    this.layout = packedFor > 0 ? CacheLayout.packed(packedFor) : null;
    this.cache =
        stowage
            .cache("person", Person.class)
            .<Long>keys(String::valueOf)
            .keyPrefix(keyPrefix)
            .noExpiry()
            .layout(layout == null ? CacheLayout.keyPerValue() : layout)
            .build();
  }

  @Override
  public String name() {
    return layout == null ? NAME : PACKED;
  }

  /** People stored: keys under the prefix, or with the packed layout the fields of its buckets. */
  @Override
  public long stored(BenchRedis redis, String prefix) {
    if (layout == null) {
      return redis.countKeys(prefix);
    }
    long fields = 0;
    for (int bucket = 0; bucket < layout.buckets(); bucket++) {
      fields += redis.admin().hlen(Inspector.Keys.packedBucket(prefix, bucket));
    }
    return fields;
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
    params.put(
        "commands",
        layout == null
            ? "one round trip per 100 people"
            : "one HMGET / HSET per bucket, "
                + layout.buckets()
                + " buckets, one flush per 100 people");
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
