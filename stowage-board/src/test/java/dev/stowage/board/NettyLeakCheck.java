package dev.stowage.board;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a leaked buffer while it ran. Registered for every test
 * class of this module (automatic extension registration, see {@code junit-platform.properties}).
 *
 * <p>Netty reports a leak only once the garbage collector has found the buffer unreachable and the
 * detector then tracks another buffer. So after each class this collects garbage, waits until the
 * collector has processed the weak references it cleared (a weak reference of its own is enqueued),
 * and allocates buffers, which makes the detector poll for leaks. A leak from an earlier class that
 * surfaces only now fails this one; its access records say where the buffer went.
 */
public final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback {
  private static final long GC_WAIT_MILLIS = 10_000;
  private static final int COLLECTIONS = 2;

  @Override
  public void beforeAll(ExtensionContext context) {
    if (!LeakRecordingDetector.installed()) {
      throw new IllegalStateException(
          "Netty's leak detector is not the recording one: run the"
              + " tests with -Dio.netty.customResourceLeakDetector="
              + LeakRecordingDetector.class.getName()
              + " (this module's pom sets it)");
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    for (int i = 0; i < COLLECTIONS; i++) {
      collectGarbage();
      pollForLeaks();
    }
    List<String> leaks = LeakRecordingDetector.drain();
    if (!leaks.isEmpty()) {
      throw new AssertionError(
          leaks.size()
              + " Netty resource leak(s) reported while "
              + context.getDisplayName()
              + " (or a class beside or before it) ran:\n"
              + String.join("\n", leaks));
    }
  }

  /** Runs a collection and waits until its cleared weak references have been enqueued. */
  @SuppressWarnings("ReferenceEquality") // the sentinel reference itself
  private static void collectGarbage() throws InterruptedException {
    ReferenceQueue<Object> queue = new ReferenceQueue<>();
    WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
    System.gc();
    if (queue.remove(GC_WAIT_MILLIS) != sentinel) {
      throw new IllegalStateException(
          "the garbage collector did not clear a weak reference"
              + " within "
              + GC_WAIT_MILLIS
              + " ms; cannot check for leaked buffers");
    }
  }

  /** Tracking a new buffer makes the detector report the leaks it has collected. */
  private static void pollForLeaks() {
    for (ByteBuf probe :
        new ByteBuf[] {
          PooledByteBufAllocator.DEFAULT.directBuffer(1),
          PooledByteBufAllocator.DEFAULT.heapBuffer(1),
          UnpooledByteBufAllocator.DEFAULT.buffer(1)
        }) {
      probe.release();
    }
  }
}
