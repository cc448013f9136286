package dev.stowage.internal.cache;

import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.format.StowageKeys;
import dev.stowage.internal.redis.LuaScript;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The distributed load lock, which shares a load across processes: the process that loads a key
 * holds {@code stowage:lock:<key>} ({@code SET NX PX} with a random token, for at most the lock
 * time) and releases it with a compare-and-delete script, so that only its holder releases it.
 * Another process polls for the value meanwhile, and loads the key itself if neither the value nor
 * the lock's release has come within the lock time.
 *
 * <p>Waiting holds no thread: each poll is scheduled with {@link CompletableFuture#delayedExecutor}
 * and its read is asynchronous, so any number of callers can wait while another process loads.
 */
public final class LoadLock {
  private static final System.Logger LOG = System.getLogger("dev.stowage.cache");
  private static final LuaScript RELEASE =
      LuaScript.load(LoadLock.class, ScriptOutputType.INTEGER, "load-lock-release.lua");
  private static final SecureRandom TOKENS = new SecureRandom();

  /** Runs a poll's read: dispatching a command does not block, so no pool is needed for it. */
  private static final Executor DISPATCH = Runnable::run;

  private final RedisSession session;
  private final long lockMillis;
  private final long lockNanos;
  private final Executor pollDelay;
  private final String owner;

  /** What a poll found: the value ({@code null} for a key cached as absent), or nothing yet. */
  record Found<V>(boolean found, @Nullable V value) {
    static <V> Found<V> nothing() {
      return new Found<>(false, null);
    }

    static <V> Found<V> value(@Nullable V value) {
      return new Found<>(true, value);
    }
  }

  LoadLock(RedisSession session, Duration lockTime, String owner) {
    this.session = session;
    this.lockMillis = lockTime.toMillis();
    this.lockNanos = lockTime.toNanos();
    long pollMillis = Math.max(5, Math.min(50, lockMillis / 10));
    this.pollDelay = CompletableFuture.delayedExecutor(pollMillis, TimeUnit.MILLISECONDS, DISPATCH);
    this.owner = owner;
  }

  /**
   * Runs {@code load} for {@code keyText} once this process holds its lock; while another process
   * holds it, polls with {@code poll} and completes with the value found. Past the lock time, runs
   * {@code load} without the lock.
   */
  <V> CompletableFuture<V> run(
      String keyText,
      Supplier<CompletableFuture<V>> load,
      Supplier<CompletableFuture<Found<V>>> poll) {
    String lockKeyText = StowageKeys.loadLock(keyText);
    byte[] lockKey = lockKeyText.getBytes(StandardCharsets.UTF_8);
    byte[] token = new byte[16];
    TOKENS.nextBytes(token);
    return new Attempt<>(
            keyText, lockKey, token, "SET NX " + lockKeyText + " of " + owner, load, poll)
        .next();
  }

  /** One caller's attempts at the lock of one key. */
  private final class Attempt<V> {
    private final String keyText;
    private final byte[] lockKey;
    private final byte[] token;
    private final String what;
    private final Supplier<CompletableFuture<V>> load;
    private final Supplier<CompletableFuture<Found<V>>> poll;
    private final long deadline = System.nanoTime() + lockNanos;

    Attempt(
        String keyText,
        byte[] lockKey,
        byte[] token,
        String what,
        Supplier<CompletableFuture<V>> load,
        Supplier<CompletableFuture<Found<V>>> poll) {
      this.keyText = keyText;
      this.lockKey = lockKey;
      this.token = token;
      this.what = what;
      this.load = load;
      this.poll = poll;
    }

    /** Takes the lock and loads, or waits a poll interval, reads, and tries again. */
    CompletableFuture<V> next() {
      return session
          .<String>call(what, c -> c.set(lockKey, token, SetArgs.Builder.nx().px(lockMillis)))
          .thenCompose(acquired -> "OK".equals(acquired) ? loadAndRelease() : afterPoll());
    }

    private CompletableFuture<V> loadAndRelease() {
      CompletableFuture<V> loaded;
      try {
        loaded = load.get();
      } catch (RuntimeException | Error e) {
        loaded = CompletableFuture.failedFuture(e);
      }
      return Futures.handleCompose(
          loaded,
          (value, failure) ->
              release()
                  .handle(
                      (released, ignored) -> {
                        if (failure != null) {
                          throw Futures.asCompletion(failure);
                        }
                        return value;
                      }));
    }

    private CompletableFuture<V> afterPoll() {
      return CompletableFuture.<Void>completedFuture(null)
          .thenComposeAsync(start -> poll.get(), pollDelay)
          .thenCompose(
              found -> {
                if (found.found()) {
                  return CompletableFuture.completedFuture(found.value());
                }
                if (System.nanoTime() - deadline > 0) {
                  LOG.log(
                      Level.DEBUG,
                      () ->
                          owner
                              + ": "
                              + keyText
                              + " is still locked by another process after "
                              + lockMillis
                              + " ms; loading it here");
                  return load.get();
                }
                return next();
              });
    }

    /**
     * Releases the lock if this caller still holds it; a failure is logged: the lock expires
     * anyway.
     */
    private CompletableFuture<Void> release() {
      String releasing = "releasing the load lock of " + keyText + " of " + owner;
      return session
          .translated(RELEASE.<Long>run(session, new byte[][] {lockKey}, token), releasing)
          .handle(
              (released, failure) -> {
                if (failure != null) {
                  LOG.log(
                      Level.WARNING,
                      owner
                          + ": could not release the load lock of "
                          + keyText
                          + "; it expires on its own: "
                          + Futures.unwrap(failure).getMessage());
                }
                return null;
              });
    }
  }
}
