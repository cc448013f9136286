package dev.stowage.internal.feed;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncFeed;
import dev.stowage.Feed;
import dev.stowage.internal.connection.RedisSession;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The blocking view of a {@link RedisFeed}: each call starts the asynchronous operation and waits
 * for it, at most the command timeout per round trip.
 *
 * <p>A page is decoded here, in the calling thread, on the asynchronous read's own path: the read
 * hands its decoding to a {@link WaitingThread} instead of deciding by the page's size. The caller
 * waits anyway, and a page of {@link RedisFeed#DECODE_ELSEWHERE_BYTES} or more decoded on Lettuce's
 * computation threads would cost a hand-over each way while that thread sits idle. (A one-off
 * timing when this was written favoured the caller for pages of 5 to 10 KiB; no benchmark in the
 * repository measures blocking pages on their own.)
 */
final class BlockingFeed<V> implements Feed<V> {
  private final RedisFeed<V> core;
  private final RedisSession session;

  BlockingFeed(RedisFeed<V> core) {
    this.core = core;
    this.session = core.session();
  }

  @Override
  public String name() {
    return core.name();
  }

  @Override
  public long add(V value) {
    return session.await(core.add(value), 1, core.describeAdd());
  }

  @Override
  public List<Long> addAll(List<? extends V> values) {
    requireNonNull(values, "values");
    return session.await(
        core.addAll(values), core.chunks(values.size()), core.describeAddAll(values.size()));
  }

  @Override
  public void putAll(Map<Long, ? extends V> valuesByScore) {
    requireNonNull(valuesByScore, "valuesByScore");
    session.await(
        core.putAll(valuesByScore),
        core.chunks(valuesByScore.size()),
        core.describePutAll(valuesByScore.size()));
  }

  @Override
  public List<Entry<V>> page(int page, int size) {
    WaitingThread decoder = new WaitingThread();
    return decoder.await(core.page(page, size, decoder), core.describePage(page, size));
  }

  @Override
  public boolean remove(long score) {
    return session.await(core.remove(score), 1, core.describeRemove(score));
  }

  @Override
  public long size() {
    return session.await(core.size(), 1, core.describeSize());
  }

  @Override
  public void clear() {
    session.await(core.clear(), 1, core.describeClear());
  }

  @Override
  public OptionalLong reserveScores(int count, long floor) {
    return session.await(
        core.reserveScores(count, floor),
        1,
        "reserving " + count + " scores of feed '" + core.name() + "'");
  }

  @Override
  public long raiseCounter(long atLeast) {
    return session.await(
        core.raiseCounter(atLeast), 1, "raising the counter of feed '" + core.name() + "'");
  }

  @Override
  public long decodeFailures() {
    return core.decodeFailures();
  }

  @Override
  public AsyncFeed<V> async() {
    return core;
  }

  @Override
  public String toString() {
    return "Feed[" + core.name() + ", key " + core.key() + "]";
  }

  /**
   * An executor of one task, which the thread waiting for the result runs: it is handed over when
   * the reply is in, and the waiting thread runs it as soon as it wakes.
   */
  private final class WaitingThread implements Executor {
    private final CompletableFuture<Runnable> task = new CompletableFuture<>();

    @Override
    public void execute(Runnable command) {
      if (!task.complete(command)) {
        throw new IllegalStateException("a waiting thread runs one task");
      }
    }

    /**
     * Waits for {@code result}, one round trip at most, running the task handed over meanwhile; the
     * task completes {@code result}.
     */
    <T> T await(CompletableFuture<T> result, String what) {
      session.await(CompletableFuture.anyOf(result, task), 1, what);
      Runnable handedOver = task.getNow(null);
      if (handedOver != null) {
        handedOver.run();
      }
      return session.await(result, 1, what);
    }
  }
}
