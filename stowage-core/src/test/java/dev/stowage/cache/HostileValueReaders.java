package dev.stowage.cache;

import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.cache.HostileValues.Rec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The child JVM of {@link DecodeHeapBoundIntegrationTests}: at a small heap, 16 threads read the
 * hostile value a few times each, then a value just under the element limit. Exits 0 when no read
 * threw anything (every hostile read a miss, at least one read of the allowed value a hit), 3 on an
 * OutOfMemoryError, 1 on anything else wrong; it prints what it saw.
 */
public final class HostileValueReaders {
  static final int THREADS = 16;
  static final int HOSTILE_READS = 5;
  static final int ALLOWED_READS = 2;

  private HostileValueReaders() {}

  /** Arguments: the Redis URI, the cache name, the hostile key, the allowed key, its tag count. */
  public static void main(String[] args) throws Exception {
    String uri = args[0];
    String cacheName = args[1];
    String hostileKey = args[2];
    String allowedKey = args[3];
    int allowedTags = Integer.parseInt(args[4]);
    AtomicInteger outOfMemory = new AtomicInteger();
    AtomicInteger otherFailures = new AtomicInteger();
    AtomicInteger hostileHits = new AtomicInteger();
    AtomicInteger allowedHits = new AtomicInteger();
    int status;
    try (Stowage stowage = Stowage.builder().redis(uri).build()) {
      RedisCache<String, Rec> cache = stowage.cache(cacheName, Rec.class).build();
      ExecutorService readers = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> reads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        reads.add(
            readers.submit(
                () -> {
                  read(
                      () -> {
                        for (int i = 0; i < HOSTILE_READS; i++) {
                          if (cache.get(hostileKey) != null) {
                            hostileHits.incrementAndGet();
                          }
                        }
                      },
                      outOfMemory,
                      otherFailures);
                }));
      }
      waitFor(reads);
      reads.clear();
      for (int t = 0; t < THREADS; t++) {
        reads.add(
            readers.submit(
                () -> {
                  read(
                      () -> {
                        for (int i = 0; i < ALLOWED_READS; i++) {
                          Rec value = cache.get(allowedKey);
                          if (value != null) {
                            if (value.tags().size() != allowedTags) {
                              throw new AssertionError(
                                  "read " + value.tags().size() + " tags, not " + allowedTags);
                            }
                            allowedHits.incrementAndGet();
                          }
                        }
                      },
                      outOfMemory,
                      otherFailures);
                }));
      }
      waitFor(reads);
      readers.shutdownNow();
      System.out.println(
          "hostile hits "
              + hostileHits
              + ", allowed hits "
              + allowedHits
              + " of "
              + THREADS * ALLOWED_READS
              + ", decode failures "
              + cache.stats().decodeFailures()
              + ", out of memory "
              + outOfMemory
              + ", other failures "
              + otherFailures);
      status =
          outOfMemory.get() > 0
              ? 3
              : otherFailures.get() > 0 || hostileHits.get() > 0 || allowedHits.get() == 0 ? 1 : 0;
    }
    System.exit(status);
  }

  private static void read(Runnable reads, AtomicInteger outOfMemory, AtomicInteger otherFailures) {
    try {
      reads.run();
    } catch (OutOfMemoryError e) {
      outOfMemory.incrementAndGet();
    } catch (Throwable e) {
      otherFailures.incrementAndGet();
      e.printStackTrace();
    }
  }

  private static void waitFor(List<Future<?>> reads) throws Exception {
    for (Future<?> read : reads) {
      read.get(60, TimeUnit.SECONDS);
    }
  }
}
