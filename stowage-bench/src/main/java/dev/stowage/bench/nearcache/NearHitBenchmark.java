package dev.stowage.bench.nearcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a near-cache hit costs: {@code RedisCache.get} of a key its near cache holds, against the
 * lookup it should cost about as much as, a {@code ConcurrentHashMap.get} of the whole Redis key (a
 * hit of Lettuce's {@code ClientSideCaching} over a map), and a bounded Caffeine cache's {@code
 * getIfPresent}. 1,024 keys, every one held, read in turn. Not part of {@code stowage bench} (the
 * {@code nearcache} table measures whole clients under load); run it with JMH's own main:
 *
 * <pre>
 * java -cp 'stowage-bench-cli/target/stowage-bench-cli.jar:stowage-bench-cli/target/lib/*' \
 *     org.openjdk.jmh.Main NearHitBenchmark -f 1 -wi 3 -w 1 -i 5 -r 1 -t 1
 * </pre>
 *
 * <p>The trial starts an embedded Redis, fills it and the near cache, and fails if a key is not a
 * near hit afterwards, so the score never measures a round trip.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NearHitBenchmark {
  private static final int KEYS = 1024;

  private RedisServer redis;
  private Stowage stowage;
  private RedisCache<String, Item> cache;
  private final String[] suffixes = new String[KEYS];
  private final String[] redisKeys = new String[KEYS];
  private final Map<String, Item> map = new ConcurrentHashMap<>();
  private final Cache<String, Item> caffeine = Caffeine.newBuilder().maximumSize(100_000).build();
  private final Cache<String, Item> caffeineExpiring =
      Caffeine.newBuilder()
          .maximumSize(100_000)
          .expireAfter(Expiry.<String, Item>creating((key, value) -> Duration.ofHours(1)))
          .build();

  /** Each thread's place in the key sequence. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    int advance() {
      return next++ & (KEYS - 1);
    }
  }

  @Setup
  public void setUp() {
    redis = RedisServer.start();
    stowage = Stowage.builder().redis(redis.uri()).commandTimeout(Duration.ofSeconds(10)).build();
    cache =
        stowage
            .cache("near-hit", Item.class)
            .keyPrefix("bench:near-hit:")
            .nearCache(NearCache.maximumSize(100_000))
            .build();
    List<Item> items = Samples.items(KEYS);
    for (int i = 0; i < KEYS; i++) {
      suffixes[i] = Integer.toString(i);
      redisKeys[i] = cache.redisKey(suffixes[i]);
      Item item = items.get(i);
      cache.put(suffixes[i], item);
      map.put(redisKeys[i], item);
      caffeine.put(redisKeys[i], item);
      caffeineExpiring.put(redisKeys[i], item);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (int i = 0; i < KEYS; i++) {
      long nearHits = cache.stats().nearHits();
      cache.get(suffixes[i]);
      while (true) {
        long before = cache.stats().nearHits();
        cache.get(suffixes[i]);
        if (cache.stats().nearHits() > before) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "key "
                  + suffixes[i]
                  + " is not a near hit after reading it (near hits "
                  + nearHits
                  + "): tracking did not start");
        }
        Thread.onSpinWait();
      }
    }
  }

  @TearDown
  public void tearDown() {
    stowage.close();
    redis.close();
  }

  @Benchmark
  public @Nullable Item stowageNearHit(Cursor cursor) {
    return cache.get(suffixes[cursor.advance()]);
  }

  @Benchmark
  public @Nullable Item concurrentHashMap(Cursor cursor) {
    return map.get(redisKeys[cursor.advance()]);
  }

  @Benchmark
  public @Nullable Item caffeineBounded(Cursor cursor) {
    return caffeine.getIfPresent(redisKeys[cursor.advance()]);
  }

  @Benchmark
  public @Nullable Item caffeineExpiring(Cursor cursor) {
    return caffeineExpiring.getIfPresent(redisKeys[cursor.advance()]);
  }

  @Benchmark
  public @Nullable Item prefixThenMap(Cursor cursor) {
    return map.get("bench:near-hit:" + suffixes[cursor.advance()]);
  }

  /** The clock read a hit of an entry with a deadline makes. */
  @Benchmark
  public long clock() {
    return System.nanoTime();
  }
}
