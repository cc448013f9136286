package dev.stowage.board;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.stowage.board.tcp.BoardTcpServer;
import dev.stowage.board.tcp.TcpOptions;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The board service in a JVM of its own, measuring its memory: the child process of {@link
 * BoardMemoryBoundIntegrationTests}. Started as {@code java -Xmx512m -D<property>=<value>…
 * dev.stowage.board.MeasuredBoard <redis-uri> <r2dbc-url>}; it runs stowage mode with an
 * uncompressed feed, the near cache, an ephemeral HTTP port and an ephemeral plain TCP port. Any
 * {@code -Dstowage.board.*} property given to the JVM overrides what it starts with (system
 * properties outrank the defaults that {@link BoardServer} passes to Spring).
 *
 * <p>Every line it writes for the test starts with {@code measure }: first {@code measure ready
 * http=<port> tcp=<port>}. It then answers commands read from its standard input, one a line, each
 * followed by a token that the answer repeats: {@code status <token>} prints the open connections
 * and the peaks since the last reset, {@code reset <token>} sets the peaks to what is used now
 * (after a garbage collection). The end of its input stops the service and the process.
 *
 * <p>Memory is sampled every {@value #SAMPLE_MILLIS} ms: heap used (garbage included), the JDK's
 * direct buffer pool, and Netty's own count of direct memory (-1 when Netty allocates through the
 * JDK, which the buffer pool then counts). The heap used after each garbage collection (the heap
 * pools' sum) is taken from the collector's notifications, counting only full collections: after a
 * young collection the old generation still holds whatever garbage was promoted (up to G1's
 * initiating occupancy, 45% of the heap), so that figure rises with the machine's load rather than
 * with what the service holds. A young collection that leaves more than {@value #CONFIRM_MARGIN}
 * bytes above the peak so far is followed by a full one ({@code System.gc()}), whose figure counts:
 * the peak is what the service held, garbage aside, to within that margin.
 */
public final class MeasuredBoard {
  /** The prefix of the lines the test reads. */
  static final String PREFIX = "measure ";

  private static final long SAMPLE_MILLIS = 5;

  /** How far above the peak a young collection may leave the heap before a full one checks it. */
  static final long CONFIRM_MARGIN = 16L << 20;

  private final AtomicLong heapPeak = new AtomicLong();
  private final AtomicLong heapAfterGcPeak = new AtomicLong();
  private final AtomicLong directPeak = new AtomicLong();
  private final AtomicLong nettyDirectPeak = new AtomicLong();
  private final BufferPoolMXBean directPool =
      ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
          .filter(pool -> pool.getName().equals("direct"))
          .findFirst()
          .orElseThrow();
  private final Set<String> heapPools =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(pool -> pool.getType() == MemoryType.HEAP)
          .map(MemoryPoolMXBean::getName)
          .collect(Collectors.toSet());

  private MeasuredBoard() {}

  /** Starts the service on {@code args[0]} (Redis) and {@code args[1]} (the database). */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: MeasuredBoard <redis-uri> <r2dbc-url>");
    }
    MeasuredBoard measured = new MeasuredBoard();
    measured.watchCollections();
    ScheduledExecutorService sampler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "memory-sampler");
              thread.setDaemon(true);
              return thread;
            });
    var unusedTask =
        sampler.scheduleAtFixedRate(measured::sample, 0, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
    try (BoardServer board =
        BoardServer.start(
            0,
            args[0],
            args[1],
            BoardMode.STOWAGE,
            FeedCompression.NONE,
            TcpOptions.builder().port(0).build(),
            HttpOptions.defaults(),
            true)) {
      BoardTcpServer tcp = Objects.requireNonNull(board.tcp(), "the TCP endpoint");
      print("ready http=" + board.port() + " tcp=" + tcp.port());
      BufferedReader commands =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = commands.readLine()) != null; ) {
        String[] command = line.trim().split(" ");
        if (command[0].equals("reset")) {
          measured.reset();
        }
        print(
            command[0]
                + " "
                + (command.length > 1 ? command[1] : "-")
                + " tcpOpen="
                + tcp.openConnections()
                + " httpOpen="
                + board.httpConnections()
                + " "
                + measured.peaks());
      }
    } finally {
      sampler.shutdownNow();
    }
  }

  private static void print(String line) {
    System.out.println(PREFIX + line);
    System.out.flush();
  }

  /**
   * The peaks as {@code name=bytes} pairs, which {@link BoardMemoryBoundIntegrationTests} parses.
   */
  private String peaks() {
    return "heapPeak="
        + heapPeak.get()
        + " heapAfterGcPeak="
        + heapAfterGcPeak.get()
        + " directPeak="
        + directPeak.get()
        + " nettyDirectPeak="
        + nettyDirectPeak.get();
  }

  /** Collects garbage, then starts the peaks again from what is used now. */
  private void reset() {
    System.gc();
    heapPeak.set(0);
    // The collection's notification may come later: what is used now is the heap after it.
    heapAfterGcPeak.set(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    directPeak.set(0);
    nettyDirectPeak.set(0);
    sample();
  }

  private void sample() {
    heapPeak.accumulateAndGet(
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
    directPeak.accumulateAndGet(directPool.getMemoryUsed(), Math::max);
    long netty = PlatformDependent.usedDirectMemory();
    long pooled = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    nettyDirectPeak.accumulateAndGet(netty < 0 ? -1 : Math.max(netty, pooled), Math::max);
  }

  /** Notes the heap used after full collections, from the collectors' notifications. */
  private void watchCollections() {
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) collector)
          .addNotificationListener(
              (notification, handback) -> {
                if (!notification
                    .getType()
                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                  return;
                }
                GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long used =
                    info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                        .filter(pool -> heapPools.contains(pool.getKey()))
                        .mapToLong(pool -> pool.getValue().getUsed())
                        .sum();
                if (info.getGcAction().equals("end of major GC")) {
                  heapAfterGcPeak.accumulateAndGet(used, Math::max);
                } else if (used > heapAfterGcPeak.get() + CONFIRM_MARGIN) {
                  // Notifications come one at a time on one thread: the full collection's own
                  // comes after this one returns, and records the figure.
                  System.gc();
                }
              },
              null,
              null);
    }
  }
}
