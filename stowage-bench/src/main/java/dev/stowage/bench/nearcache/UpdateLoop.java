package dev.stowage.bench.nearcache;

import dev.stowage.samples.Item;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;

/**
 * The writer that runs beside a row's readers: one thread writes a new version of a key drawn
 * uniformly, at a fixed rate, through the row's {@link ItemWriter}; once Redis has acknowledged a
 * write, confirming threads read the key through the client under test until it returns the new
 * version, which then raises the key's {@linkplain VersionFloors floor}, or until the bound has
 * passed, which counts an invalidation timeout.
 *
 * <p>Confirmations wait in a delay queue and are read again after {@link #POLL_INTERVAL}, doubled
 * after each read that still shows the old version up to {@link #MAX_POLL_INTERVAL}, so a client
 * that never shows a write holds a confirming thread for one read at a time, not for the whole
 * bound, and a thousand writes waiting to show do not need a million reads a second. The writes are
 * paced against a schedule: a thread woken late catches up, by at most a second's worth of writes.
 */
final class UpdateLoop {

  /** How long a confirmation first waits before reading again. */
  static final Duration POLL_INTERVAL = Duration.ofMillis(1);

  /** The longest a confirmation waits between two reads. */
  static final Duration MAX_POLL_INTERVAL = Duration.ofMillis(16);

  /**
   * Enough threads that confirming does not fall behind the writes when each confirming read is a
   * round trip of several milliseconds, as Redis's is at 200 callers on two cores.
   */
  private static final int CONFIRMING_THREADS = 16;

  private final ItemWriter writer;
  private final ReadClient client;
  private final long[] written;
  private final VersionFloors floors;
  private final List<Item> templates;
  private final int perSecond;
  private final long timeoutNanos;
  private final DelayQueue<Pending> pending = new DelayQueue<>();
  private final AtomicInteger outstanding = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final LongAdder writes = new LongAdder();
  private final LongAdder timeouts = new LongAdder();
  private final LongAdder confirmingReads = new LongAdder();
  private final Histogram visible = new SynchronizedHistogram(TimeUnit.SECONDS.toNanos(60), 3);
  private final Thread writing;
  private final Thread[] confirming = new Thread[CONFIRMING_THREADS];
  private volatile boolean running = true;
  private volatile boolean confirmingStopped;
  private volatile long countingSince;

  /**
   * A loop that writes the next version after {@code written[i]} (and records it there) at {@code
   * perSecond} writes a second; {@link #start()} starts it.
   */
  UpdateLoop(
      String label,
      ItemWriter writer,
      ReadClient client,
      long[] written,
      VersionFloors floors,
      List<Item> templates,
      int perSecond,
      Duration timeout) {
    if (perSecond < 1) {
      throw new IllegalArgumentException("writes per second must be at least 1, not " + perSecond);
    }
    this.writer = Objects.requireNonNull(writer, "writer");
    this.client = Objects.requireNonNull(client, "client");
    this.written = written;
    this.floors = floors;
    this.templates = templates;
    this.perSecond = perSecond;
    this.timeoutNanos = timeout.toNanos();
    this.writing = new Thread(this::write, label + "-writer");
    writing.setDaemon(true);
    for (int i = 0; i < CONFIRMING_THREADS; i++) {
      confirming[i] = new Thread(this::confirm, label + "-confirm-" + i);
      confirming[i].setDaemon(true);
    }
  }

  /**
   * Item {@code index} at {@code version}: a copy of a sample item, its price carrying the version.
   */
  static Item item(List<Item> templates, int index, long version) {
    Item t = templates.get(index % templates.size());
    return new Item(index, t.name(), t.description(), version, t.stock());
  }

  /** The version an item carries. */
  static long version(Item item) {
    return item.price();
  }

  void start() {
    countingSince = System.nanoTime();
    writing.start();
    for (Thread thread : confirming) {
      thread.start();
    }
  }

  /** The reads made through the client to confirm writes, since the loop started. */
  long confirmingReads() {
    return confirmingReads.sum();
  }

  /** Counts writes, timeouts and visibility from now on (the timed loop starts). */
  void resetCounts() {
    writes.reset();
    timeouts.reset();
    visible.reset();
    countingSince = System.nanoTime();
  }

  /**
   * Stops writing, waits for the writes sent to be confirmed or to time out, stops the confirming
   * threads and returns what was counted since {@link #resetCounts()}.
   *
   * @throws IllegalStateException if a write or a confirming read failed
   */
  Counts stop() throws InterruptedException {
    running = false;
    writing.join();
    long writeNanos = System.nanoTime() - countingSince;
    long deadline = System.nanoTime() + timeoutNanos + TimeUnit.SECONDS.toNanos(5);
    while (outstanding.get() > 0 && System.nanoTime() < deadline && failure.get() == null) {
      LockSupport.parkNanos(POLL_INTERVAL.toNanos());
    }
    confirmingStopped = true;
    for (Thread thread : confirming) {
      thread.interrupt();
    }
    for (Thread thread : confirming) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("the writer failed: " + failure.get(), failure.get());
    }
    if (outstanding.get() > 0) {
      throw new IllegalStateException(
          outstanding.get() + " writes were neither confirmed nor timed out");
    }
    Histogram copy = visible.copy();
    return new Counts(
        writes.sum(),
        writes.sum() * 1e9 / Math.max(1, writeNanos),
        timeouts.sum(),
        copy.getTotalCount() == 0 ? 0 : copy.getValueAtPercentile(50) / 1e6,
        copy.getTotalCount() == 0 ? 0 : copy.getValueAtPercentile(99) / 1e6);
  }

  /** Stops everything without waiting for confirmations; does nothing after {@link #stop()}. */
  void close() throws InterruptedException {
    running = false;
    confirmingStopped = true;
    if (writing.isAlive()) {
      writing.join();
    }
    for (Thread thread : confirming) {
      thread.interrupt();
    }
    for (Thread thread : confirming) {
      if (thread.isAlive()) {
        thread.join();
      }
    }
  }

  /**
   * What the loop counted.
   *
   * @param writes writes sent
   * @param writesPerSecond writes sent per second
   * @param timeouts writes the client did not show within the bound
   * @param visibleP50Millis median time from Redis's acknowledgement of a write to the client
   *     returning it
   * @param visibleP99Millis 99th percentile of the same
   */
  record Counts(
      long writes,
      double writesPerSecond,
      long timeouts,
      double visibleP50Millis,
      double visibleP99Millis) {}

  private void write() {
    SplittableRandom random = new SplittableRandom(7);
    long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
    long next = System.nanoTime();
    try {
      while (running && failure.get() == null) {
        long now = System.nanoTime();
        if (next > now) {
          LockSupport.parkNanos(next - now);
          continue;
        }
        next = Math.max(next, now - TimeUnit.SECONDS.toNanos(1)) + interval;
        int index = random.nextInt(written.length);
        long version = ++written[index];
        outstanding.incrementAndGet();
        writes.increment();
        writer
            .write(index, item(templates, index, version))
            .whenComplete(
                (ok, error) -> {
                  if (error != null) {
                    failure.compareAndSet(null, error);
                    outstanding.decrementAndGet();
                  } else {
                    pending.add(new Pending(index, version, System.nanoTime()));
                  }
                });
      }
    } catch (RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }

  private void confirm() {
    while (true) {
      Pending next;
      try {
        next = pending.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        confirmingReads.increment();
        Item item = client.get(next.index);
        long now = System.nanoTime();
        if (item != null && version(item) >= next.version) {
          floors.observed(next.index, next.version);
          visible.recordValue(
              Math.min(now - next.acknowledged, visible.getHighestTrackableValue()));
          outstanding.decrementAndGet();
        } else if (now - next.acknowledged >= timeoutNanos) {
          floors.timedOut(next.index, next.version);
          timeouts.increment();
          outstanding.decrementAndGet();
        } else {
          next.interval = Math.min(next.interval * 2, MAX_POLL_INTERVAL.toNanos());
          next.due = now + next.interval;
          pending.add(next);
        }
      } catch (Exception e) {
        if (confirmingStopped) {
          return;
        }
        failure.compareAndSet(null, e);
        outstanding.decrementAndGet();
      }
    }
  }

  /** A write Redis acknowledged, waiting to be seen through the client. */
  private static final class Pending implements Delayed {
    final int index;
    final long version;
    final long acknowledged;
    volatile long due;
    volatile long interval = POLL_INTERVAL.toNanos() / 2;

    Pending(int index, long version, long acknowledged) {
      this.index = index;
      this.version = version;
      this.acknowledged = acknowledged;
      this.due = acknowledged;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(due, ((Pending) other).due);
    }
  }
}
