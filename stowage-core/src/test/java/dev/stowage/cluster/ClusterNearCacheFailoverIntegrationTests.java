package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A master killed with SIGKILL while one process writes and another reads through its near cache:
 * no read sees a value older than the last write acknowledged before it started, through the kill,
 * the promotion of the replica and after, and the near cache answers reads again once the promoted
 * replica tracks.
 *
 * <p>A write counts as acknowledged here once the put returned, the killed master's replica (while
 * one runs) has it, and the reading process has seen it: Redis replicates asynchronously, so a put
 * its replica lacks may be lost in the failover (which {@code ClusterFailoverIntegrationTests}
 * counts), and an invalidation travels asynchronously to the reader, so "acknowledged" must include
 * its arrival, as in {@code NearCacheIntegrationTests}.
 */
@WithRedisCluster
class ClusterNearCacheFailoverIntegrationTests {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final String CACHE = "values";

  record Value(String key, long n) {}

  @Test
  void noReadIsStaleThroughAFailoverAndTheNearCacheWorksAgainAfterIt(RedisClusterSet cluster)
      throws Exception {
    try (Stowage readerProcess =
            Stowage.builder()
                .redisCluster(cluster.seedUri())
                .commandTimeout(COMMAND_TIMEOUT)
                .build();
        Stowage writerProcess =
            Stowage.builder()
                .redisCluster(cluster.uris().get(4))
                .commandTimeout(COMMAND_TIMEOUT)
                .build()) {
      RedisCache<String, Value> reader =
          readerProcess
              .cache(CACHE, Value.class)
              .noExpiry()
              .nearCache(NearCache.maximumSize(1000))
              .build();
      RedisCache<String, Value> writer = writerProcess.cache(CACHE, Value.class).noExpiry().build();
      RedisServer victim = cluster.masterOf(CACHE + ":{victim}");
      List<String> keys = new ArrayList<>(List.of("{victim}:a", "{victim}:b"));
      for (int i = 0; keys.size() < 6; i++) {
        if (cluster.masterOf(CACHE + ":" + i).port() != victim.port()) {
          keys.add(Integer.toString(i));
        }
      }
      Map<String, AtomicLong> acknowledged = new LinkedHashMap<>();
      for (String key : keys) {
        writer.put(key, new Value(key, 0));
        acknowledged.put(key, new AtomicLong(0));
      }
      awaitTracking(reader);

      AtomicBoolean stopWriting = new AtomicBoolean();
      AtomicBoolean stopReading = new AtomicBoolean();
      Queue<String> stale = new ConcurrentLinkedQueue<>();
      Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
      AtomicLong reads = new AtomicLong();
      AtomicLong victimReads = new AtomicLong();
      AtomicLong unavailable = new AtomicLong();
      AtomicLong writes = new AtomicLong();
      ExecutorService threads = Executors.newFixedThreadPool(2);
      try {
        Future<?> writing =
            threads.submit(
                () -> {
                  for (long n = 1; !stopWriting.get(); n++) {
                    String key = keys.get((int) (n % keys.size()));
                    Value value = new Value(key, n);
                    try {
                      writer.put(key, value);
                      writes.incrementAndGet();
                    } catch (CacheUnavailableException e) {
                      continue;
                    } catch (RuntimeException e) {
                      unexpected.add(e);
                      continue;
                    }
                    if (replicated(cluster, CACHE + ":" + key) && seenBy(reader, key, n)) {
                      acknowledged.get(key).accumulateAndGet(n, Math::max);
                    }
                  }
                });
        Future<?> reading =
            threads.submit(
                () -> {
                  for (long i = 0; !stopReading.get(); i++) {
                    String key = keys.get((int) (i % keys.size()));
                    long floor = acknowledged.get(key).get();
                    Value value;
                    try {
                      value = reader.get(key);
                    } catch (CacheUnavailableException e) {
                      unavailable.incrementAndGet();
                      continue;
                    } catch (RuntimeException e) {
                      unexpected.add(e);
                      continue;
                    }
                    reads.incrementAndGet();
                    if (key.startsWith("{victim}")) {
                      victimReads.incrementAndGet();
                    }
                    if (value == null || value.n() < floor) {
                      stale.add(
                          key + ": read " + value + " after n=" + floor + " was acknowledged");
                    }
                  }
                });

        String watched = keys.get(0);
        await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.get(watched).get() >= 50);
        long nearHitsBeforeKill = reader.stats().nearHits();
        assertThat(nearHitsBeforeKill)
            .as("the near cache answered reads before the kill")
            .isPositive();

        cluster.killMaster(victim);
        long killedAt = System.nanoTime();
        long ackedAtKill = acknowledged.get(watched).get();
        cluster.awaitFailover();
        // Writes to the promoted replica go through and the reader sees them.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> acknowledged.get(watched).get() > ackedAtKill + 20);
        long victimReadsAfterRecovery = victimReads.get();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> victimReads.get() > victimReadsAfterRecovery + 100);
        long recoveredAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        stopWriting.set(true);
        writing.get(30, TimeUnit.SECONDS);
        // The reader goes on a little with the values settled, then stops.
        long readsWhenSettled = reads.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() > readsWhenSettled + 1_000);
        stopReading.set(true);
        reading.get(30, TimeUnit.SECONDS);

        System.out.printf(
            "near cache failover: %d puts, %d reads (%d of the killed master's keys), %d failed fast,"
                + " %d near hits; writes acknowledged again %d ms after the kill%n",
            writes.get(),
            reads.get(),
            victimReads.get(),
            unavailable.get(),
            reader.stats().nearHits(),
            recoveredAfter);
        assertThat(unexpected).as("failures other than the cache being unavailable").isEmpty();
        assertThat(stale).as("reads older than a write acknowledged before they started").isEmpty();
        assertThat(unavailable.get())
            .as("reads of the killed master's keys failed while it was down")
            .isPositive();
      } finally {
        stopWriting.set(true);
        stopReading.set(true);
        threads.shutdownNow();
      }

      // The near cache works again: the promoted replica tracks, so a read is kept and answered in
      // the process.
      String key = keys.get(0);
      Value last = reader.get(key);
      assertThat(last).isNotNull();
      assertThat(last.n()).isGreaterThanOrEqualTo(acknowledged.get(key).get());
      await()
          .atMost(Duration.ofSeconds(40))
          .until(
              () -> {
                long before = reader.stats().nearHits();
                reader.get(key);
                return reader.stats().nearHits() > before;
              });
      ClusterNodes.resetStats(cluster);
      long hitsBefore = reader.stats().nearHits();
      for (int i = 0; i < 10; i++) {
        assertThat(reader.get(key)).isEqualTo(last);
      }
      assertThat(reader.stats().nearHits() - hitsBefore).isEqualTo(10);
      assertThat(ClusterNodes.calls(cluster, "get")).as("GETs that reached a master").isZero();
      // And it still drops what the other process writes on the promoted replica.
      writer.put(key, new Value(key, last.n() + 1));
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> new Value(key, last.n() + 1).equals(reader.get(key)));
    }
  }

  /**
   * Whether every running replica of the master that serves {@code redisKey} has caught up with
   * everything that master had written when asked: then a put it acknowledged survives a failover.
   * False if the master cannot be asked (it was killed) or a replica lags for more than a second.
   */
  private static boolean replicated(RedisClusterSet cluster, String redisKey) {
    try {
      RedisServer master = cluster.masterOf(redisKey);
      long written = offset(master, "master_repl_offset");
      for (RedisServer replica : cluster.replicasOf(master)) {
        if (replica.isRunning()) {
          await()
              .pollInSameThread()
              .pollDelay(Duration.ZERO)
              .pollInterval(Duration.ofMillis(1))
              .atMost(Duration.ofSeconds(1))
              .until(() -> offset(replica, "slave_repl_offset") >= written);
        }
      }
      return true;
    } catch (RuntimeException e) {
      // IllegalStateException from a node that is down, or ConditionTimeoutException from a lagging
      // replica.
      return false;
    }
  }

  /** Whether the reading process sees {@code n} or later for {@code key} within five seconds. */
  private static boolean seenBy(RedisCache<String, Value> reader, String key, long n) {
    try {
      await()
          .pollInSameThread()
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(1))
          .atMost(Duration.ofSeconds(5))
          .ignoreExceptions()
          .until(
              () -> {
                Value seen = reader.get(key);
                return seen != null && seen.n() >= n;
              });
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }

  private static long offset(RedisServer node, String field) {
    String info = String.valueOf(node.reply("INFO", "replication"));
    for (String line : info.split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    throw new IllegalStateException(node + " reports no " + field);
  }

  /** Waits until a read of a fresh key is kept: every master tracks. */
  private static void awaitTracking(RedisCache<String, Value> cache) {
    String probe = "probe-" + System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              long before = cache.stats().nearHits();
              cache.put(probe, new Value(probe, 0));
              cache.get(probe);
              cache.get(probe);
              boolean kept = cache.stats().nearHits() > before;
              cache.delete(probe);
              return kept;
            });
  }
}
