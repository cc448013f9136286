package dev.stowage.board;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Netty's leak detector, which also keeps every leak it reports so that {@link NettyLeakCheck} can
 * fail the test class that was running. Netty creates it for every kind of resource it tracks when
 * the test JVM names it in {@code -Dio.netty.customResourceLeakDetector} (see this module's pom,
 * which also sets {@code -Dio.netty.leakDetection.level=paranoid}).
 */
public final class LeakRecordingDetector<T> extends ResourceLeakDetector<T> {
  private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

  /** The constructor Netty's default factory looks up. */
  public LeakRecordingDetector(Class<?> resourceType, int samplingInterval) {
    super(resourceType, samplingInterval);
  }

  /** The constructor older factories look up. */
  @SuppressWarnings("deprecation")
  public LeakRecordingDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
    super(resourceType, samplingInterval, maxActive);
  }

  /** Whether Netty's system property installed this detector in this JVM. */
  static boolean installed() {
    return LeakRecordingDetector.class
        .getName()
        .equals(System.getProperty("io.netty.customResourceLeakDetector"));
  }

  /** The leaks reported since the last call, and forgets them. */
  static List<String> drain() {
    List<String> leaks = new ArrayList<>();
    for (String leak; (leak = LEAKS.poll()) != null; ) {
      leaks.add(leak);
    }
    return leaks;
  }

  /** Reports whatever the logger's level: a leak is recorded even if nobody logs it. */
  @Override
  protected boolean needReport() {
    return true;
  }

  @Override
  protected void reportTracedLeak(String resourceType, String records) {
    LEAKS.add(
        "LEAK: " + resourceType + ".release() was not called; recent access records:" + records);
    super.reportTracedLeak(resourceType, records);
  }

  @Override
  protected void reportUntracedLeak(String resourceType) {
    LEAKS.add("LEAK: " + resourceType + ".release() was not called (no access records)");
    super.reportUntracedLeak(resourceType);
  }
}
