package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * A slot migrated from one master to another, and back, while callers read and write its keys one
 * by one and in bulk: every value read is the key's own, never older than what was acknowledged
 * before the read began, and no call fails (ASK and MOVED are followed; a bulk command that Redis
 * answers with TRYAGAIN mid-migration is sent again key by key).
 */
@WithRedisCluster
class ClusterReshardIntegrationTests {
  private static final int KEYS = 2_000;

  record Versioned(int key, long version) {}

  @Test
  void aSlotMigratedUnderLoadGivesNoWrongValueAndNoError(RedisClusterSet cluster) throws Exception {
    try (Stowage stowage = Stowage.builder().redisCluster(cluster.seedUri()).build()) {
      RedisCache<String, Versioned> cache = stowage.cache("hot", Versioned.class).build();
      Map<String, Versioned> initial = new LinkedHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        initial.put(key(i), new Versioned(i, 0));
      }
      cache.putAll(initial);
      int slot = cluster.slotOf("hot:" + key(0));
      RedisServer from = cluster.nodeForSlot(slot);
      RedisServer to =
          cluster.masters().stream().filter(master -> master != from).findFirst().orElseThrow();

      // acknowledged[i]: the highest version of key i that a put returned for; issued[i]: the
      // highest sent.
      AtomicLongArray acknowledged = new AtomicLongArray(KEYS);
      AtomicLongArray issued = new AtomicLongArray(KEYS);
      AtomicLong reads = new AtomicLong();
      AtomicLong writes = new AtomicLong();
      Queue<String> wrong = new ConcurrentLinkedQueue<>();
      Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService load = Executors.newFixedThreadPool(4);
      List<Future<?>> running = new ArrayList<>();
      // Two writers, each the only writer of its half of the keys, so versions rise per key.
      for (int w = 0; w < 2; w++) {
        int half = w;
        running.add(
            load.submit(
                () -> {
                  while (!stop.get()) {
                    try {
                      if (ThreadLocalRandom.current().nextInt(4) == 0) {
                        Map<String, Versioned> batch = new LinkedHashMap<>();
                        List<Integer> keys = new ArrayList<>();
                        for (int j = 0; j < 50; j++) {
                          int i = 2 * ThreadLocalRandom.current().nextInt(KEYS / 2) + half;
                          if (!keys.contains(i)) {
                            keys.add(i);
                            batch.put(key(i), new Versioned(i, issued.incrementAndGet(i)));
                          }
                        }
                        cache.putAll(batch);
                        batch
                            .values()
                            .forEach(
                                value ->
                                    acknowledged.accumulateAndGet(
                                        value.key(), value.version(), Math::max));
                      } else {
                        int i = 2 * ThreadLocalRandom.current().nextInt(KEYS / 2) + half;
                        long version = issued.incrementAndGet(i);
                        cache.put(key(i), new Versioned(i, version));
                        acknowledged.accumulateAndGet(i, version, Math::max);
                      }
                      writes.incrementAndGet();
                    } catch (RuntimeException e) {
                      errors.add(e);
                    }
                  }
                }));
      }
      for (int r = 0; r < 2; r++) {
        running.add(
            load.submit(
                () -> {
                  while (!stop.get()) {
                    try {
                      if (ThreadLocalRandom.current().nextBoolean()) {
                        int i = ThreadLocalRandom.current().nextInt(KEYS);
                        long floor = acknowledged.get(i);
                        check(i, floor, issued, cache.get(key(i)), wrong);
                      } else {
                        List<String> keys = new ArrayList<>();
                        long[] floors = new long[KEYS];
                        for (int j = 0; j < 100; j++) {
                          int i = ThreadLocalRandom.current().nextInt(KEYS);
                          floors[i] = acknowledged.get(i);
                          keys.add(key(i));
                        }
                        Map<String, Versioned> found = cache.getAll(keys);
                        for (String key : keys) {
                          int i = Integer.parseInt(key.substring(key.indexOf('}') + 2));
                          check(i, floors[i], issued, found.get(key), wrong);
                        }
                      }
                      reads.incrementAndGet();
                    } catch (RuntimeException e) {
                      errors.add(e);
                    }
                  }
                }));
      }
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() > 200 && writes.get() > 200);
        long readsBefore = reads.get();
        long writesBefore = writes.get();
        int movedThere = cluster.migrateSlot(slot, from, to);
        int movedBack = cluster.migrateSlot(slot, to, from);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> reads.get() > readsBefore + 200 && writes.get() > writesBefore + 200);
        stop.set(true);
        for (Future<?> task : running) {
          task.get(10, TimeUnit.SECONDS);
        }
        System.out.printf(
            "reshard: slot %d moved %d keys there and %d back under %d reads and %d writes;"
                + " %d wrong values, %d errors%n",
            slot, movedThere, movedBack, reads.get(), writes.get(), wrong.size(), errors.size());
        assertThat(movedThere).isEqualTo(KEYS);
        assertThat(wrong).isEmpty();
        assertThat(errors).isEmpty();
        for (int i = 0; i < KEYS; i++) {
          assertThat(cache.get(key(i))).isEqualTo(new Versioned(i, acknowledged.get(i)));
        }
      } finally {
        stop.set(true);
        load.shutdownNow();
      }
    }
  }

  /** A key of the one slot the test migrates. */
  private static String key(int i) {
    return "{hot}:" + i;
  }

  private static void check(
      int i, long floor, AtomicLongArray issued, Versioned read, Queue<String> wrong) {
    if (read == null
        || read.key() != i
        || read.version() < floor
        || read.version() > issued.get(i)) {
      wrong.add("key " + i + ": read " + read + ", acknowledged " + floor + " before the read");
    }
  }
}
