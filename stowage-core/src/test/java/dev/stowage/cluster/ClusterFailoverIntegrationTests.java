package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A master killed with SIGKILL during a write load: its slots fail fast until its replica is
 * promoted, then work again in the same Stowage; acknowledged writes it had not replicated are lost
 * (Redis replicates asynchronously), and the test counts them.
 */
@WithRedisCluster
class ClusterFailoverIntegrationTests {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

  record Value(String key, long n) {}

  @Test
  void aKilledMastersSlotsFailFastUntilItsReplicaTakesOverAndThenWorkAgain(RedisClusterSet cluster)
      throws Exception {
    try (Stowage stowage =
        Stowage.builder().redisCluster(cluster.seedUri()).commandTimeout(COMMAND_TIMEOUT).build()) {
      RedisCache<String, Value> cache = stowage.cache("load", Value.class).noExpiry().build();
      RedisServer victim = cluster.masterOf("load:{victim}");
      Map<String, Value> acknowledged = new ConcurrentHashMap<>();
      Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong attempts = new AtomicLong();
      ExecutorService writers = Executors.newFixedThreadPool(4);
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        running.add(
            writers.submit(
                () -> {
                  for (long i = 0; !stop.get(); i++) {
                    String key = writer + ":" + i;
                    Value value = new Value(key, i);
                    attempts.incrementAndGet();
                    try {
                      cache.put(key, value);
                      acknowledged.put(key, value);
                    } catch (RuntimeException e) {
                      failures.add(e);
                    }
                  }
                }));
      }
      try {
        await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() >= 4_000);
        cluster.killMaster(victim);
        long killedAt = System.nanoTime();

        // Its slots fail fast while it is down: the node's connection rejects commands at once.
        long start = System.nanoTime();
        assertThatThrownBy(() -> cache.get("{victim}"))
            .isInstanceOf(CacheUnavailableException.class);
        long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(failedAfter)
            .as("failing took %d ms", failedAfter)
            .isLessThan(COMMAND_TIMEOUT.toMillis() + 500);

        cluster.awaitFailover();
        // The same Stowage finds the promoted replica (a redirection or its reconnections refresh
        // the topology).
        await()
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(50))
            .ignoreExceptions()
            .until(
                () -> {
                  cache.put("{victim}", new Value("{victim}", 1));
                  return new Value("{victim}", 1).equals(cache.get("{victim}"));
                });
        long recoveredAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        long acknowledgedBefore = acknowledged.size();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> acknowledged.size() > acknowledgedBefore + 1_000);
        stop.set(true);
        for (Future<?> writer : running) {
          writer.get(10, TimeUnit.SECONDS);
        }

        assertThat(failures)
            .as("every failure is the cache being unavailable")
            .allSatisfy(
                failure -> assertThat(failure).isInstanceOf(CacheUnavailableException.class));
        Map<String, Value> found = cache.getAll(acknowledged.keySet());
        long missing =
            acknowledged.keySet().stream().filter(key -> !found.containsKey(key)).count();
        long missingElsewhere =
            acknowledged.keySet().stream()
                .filter(
                    key ->
                        !found.containsKey(key)
                            && cluster.masterOf("load:" + key) != cluster.masterOf("load:{victim}"))
                .count();
        System.out.printf(
            "failover: %d puts tried, %d acknowledged, %d failed fast (CacheUnavailableException),"
                + " %d acknowledged puts missing afterwards, first call failed after %d ms, calls recovered %d ms"
                + " after the kill%n",
            attempts.get(),
            acknowledged.size(),
            failures.size(),
            missing,
            failedAfter,
            recoveredAfter);
        assertThat(missingElsewhere)
            .as("nothing is lost outside the killed master's slots")
            .isZero();
        assertThat(found.values())
            .allSatisfy(value -> assertThat(acknowledged.get(value.key())).isEqualTo(value));
        assertThat(failures)
            .as("calls for the killed master's slots failed while it was down")
            .isNotEmpty();
      } finally {
        stop.set(true);
        writers.shutdownNow();
      }
    }
  }
}
