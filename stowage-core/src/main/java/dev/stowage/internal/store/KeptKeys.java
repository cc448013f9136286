package dev.stowage.internal.store;

import static java.util.Objects.requireNonNull;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import dev.stowage.internal.Futures;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.connection.RedisErrors;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.format.Schemas;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What the values of one {@link dev.stowage.Stowage} cannot be read without, kept in Redis: the
 * zstd dictionaries and writer schemas its caches and feeds write with, and the records of learned
 * dictionaries. Each is a {@link KeptKey} saved with {@code SET NX} (or {@code HSETNX}) and then
 * <em>confirmed</em>: Redis said it stored it, or holds the same bytes already.
 *
 * <p>A confirmation holds for one connection: when the shared connection drops, reconnects, or a
 * cluster's topology changes (Redis may have restarted from an older snapshot, or a replica without
 * the keys may have been promoted), every key is unconfirmed at once and saved again. A save that
 * fails because Redis cannot take it now ({@code LOADING}, {@code BUSY}, {@code READONLY}, {@code
 * MASTERDOWN}, {@code CLUSTERDOWN}, {@code TRYAGAIN}, {@code OOM}, a lost connection, a timeout) is
 * tried again after {@link #FIRST_RETRY}, doubling up to {@link #LONGEST_RETRY}, until it is
 * confirmed; any other failure (a refusal such as {@code NOPERM}, or a key that holds other bytes,
 * which is never overwritten) is logged once and tried again every {@link #REFUSED_RETRY}. Writers
 * ask {@link KeptKey#isConfirmed()} before they write with a key: a cache or feed writes with its
 * dictionary only while it is confirmed (the standard compression otherwise), and waits for its
 * schema ({@link KeptKey#awaitForWrite}).
 *
 * <p>A key Redis loses while the connection stays up ({@code FLUSHALL}, {@code DEL}, an eviction)
 * is put back when a cache or feed starts using it again, and by a pass every {@link
 * #VERIFY_PERIOD} that saves every key again; values written in between name a key that is missing
 * until then, and are readable once it is back (a dictionary's id is its content's).
 *
 * <p>Thread-safe. Nothing here blocks a Redis client's thread: saves are asynchronous and retries
 * are scheduled on the session's executor. {@link #close()} stops every retry and the next pass.
 */
public final class KeptKeys implements AutoCloseable {
  /**
   * The wait, in milliseconds, before a save is tried again after the first failure Redis may get
   * over.
   */
  static final long FIRST_RETRY = 25;

  /** The longest wait, in milliseconds, between two tries of a save Redis may get over. */
  static final long LONGEST_RETRY = 500;

  /** The wait, in milliseconds, before a save that Redis refused is tried again. */
  static final long REFUSED_RETRY = 30_000;

  /**
   * The time, in milliseconds, between two passes that save every kept key again, confirmed or not,
   * in case Redis lost it without the connection dropping.
   */
  static final long VERIFY_PERIOD = 30_000;

  private static final System.Logger LOG = System.getLogger("dev.stowage");

  private final RedisSession session;
  private final DictionaryStore dictionaries;
  private final SchemaStore schemas;

  /** Bumped whenever Redis may have lost what it held: a confirmation holds for one epoch. */
  private final AtomicLong epoch = new AtomicLong();

  private final Map<String, KeptKey> kept = new HashMap<>();
  private volatile boolean closed;

  /** The next pass of {@link #verifyAll}; cancelled on close. */
  private volatile @Nullable ScheduledFuture<?> nextVerify;

  /** The epoch now: a key confirmed in an earlier one is not confirmed. */
  long epoch() {
    return epoch.get();
  }

  boolean isClosed() {
    return closed;
  }

  RedisSession session() {
    return session;
  }

  /** Keeps keys through {@code session}, saving dictionaries and schemas through these stores. */
  public KeptKeys(RedisSession session, DictionaryStore dictionaries, SchemaStore schemas) {
    this.session = requireNonNull(session, "session");
    this.dictionaries = requireNonNull(dictionaries, "dictionaries");
    this.schemas = requireNonNull(schemas, "schemas");
    session.onDeactivation(this::unconfirmAll);
    session.onActivation(this::confirmAll);
    scheduleVerify();
  }

  /** Schedules the next {@link #verifyAll} pass {@link #VERIFY_PERIOD} from now. */
  private void scheduleVerify() {
    ScheduledFuture<?> next;
    try {
      next = session.schedule(this::verifyAll, VERIFY_PERIOD);
    } catch (RuntimeException e) {
      // The session's executor is shutting down: this Stowage is being closed.
      return;
    }
    nextVerify = next;
    if (closed) {
      next.cancel(false);
    }
  }

  /** The next verify pass, if one is scheduled; for tests. */
  @Nullable ScheduledFuture<?> nextVerify() {
    return nextVerify;
  }

  /**
   * Keeps a dictionary this process writes with in Redis; waits (at most two round trips) for the
   * first try to save it, so that a cache built while Redis answers writes with it at once.
   */
  public KeptKey dictionary(ZstdDictionary dictionary) {
    requireNonNull(dictionary, "dictionary");
    return settled(
        keep(
            "zstd dictionary "
                + dictionary.hexId()
                + " ("
                + DictionaryStore.key(dictionary.id())
                + ")",
            "values are written with the standard compression instead",
            () -> dictionaries.saveAsync(dictionary)));
  }

  /** Keeps the schema this process writes with in Redis; waits as {@link #dictionary} does. */
  public KeptKey schema(String schema) {
    requireNonNull(schema, "schema");
    int fingerprint = Schemas.fingerprint(schema);
    schemas.remember(fingerprint, schema);
    return settled(
        keep(
            "schema " + Schemas.hex(fingerprint) + " (" + Schemas.key(fingerprint) + ")",
            "values written with it wait for it",
            () -> schemas.saveAsync(schema)));
  }

  private KeptKey settled(KeptKey key) {
    key.awaitSettled(session.awaitNanos(2));
    return key;
  }

  /**
   * Keeps a key that {@code save} stores unless it exists, and confirms: its future completes once
   * Redis holds it, and fails with Redis's error, or with a {@link StowageException} without cause
   * when the key holds something else. Keys are told apart by {@code what}, which names them in log
   * lines, as {@code meanwhile} says what writes do until it is confirmed; keeping one again adds a
   * user. It is saved now, without waiting.
   */
  public KeptKey keep(
      String what, String meanwhile, Supplier<? extends CompletableFuture<?>> save) {
    requireNonNull(what, "what");
    requireNonNull(meanwhile, "meanwhile");
    requireNonNull(save, "save");
    KeptKey key;
    boolean known;
    synchronized (kept) {
      key = kept.computeIfAbsent(what, name -> new KeptKey(this, name, meanwhile, save));
      synchronized (key) {
        known = key.users++ > 0;
      }
    }
    if (known) {
      // KeptKey already, and perhaps confirmed long ago: Redis may have lost it since without a
      // reconnection (FLUSHALL, DEL, eviction). A new user saves it again before it writes.
      verify(key);
    } else {
      kick(key);
    }
    return key;
  }

  /**
   * Saves {@code key} again even while it is confirmed, so that a key Redis lost without the
   * connection dropping (a {@code FLUSHALL}, a {@code DEL}, an eviction) is put back; the save is
   * sent before this returns, so a write sent after it on the shared connection finds the key.
   */
  private void verify(KeptKey key) {
    synchronized (key) {
      if (closed || key.users == 0) {
        return;
      }
      if (key.inFlight) {
        key.again = true;
        return;
      }
      cancelRetry(key);
      key.inFlight = true;
    }
    attempt(key);
  }

  /**
   * Saves every kept key again, confirmed or not, and schedules the next pass {@link
   * #VERIFY_PERIOD} from now: the bound on how long values are written with a dictionary or schema
   * that Redis lost while the connection stayed up.
   */
  private void verifyAll() {
    if (closed) {
      return;
    }
    List<KeptKey> all;
    synchronized (kept) {
      all = List.copyOf(kept.values());
    }
    all.forEach(this::verify);
    scheduleVerify();
  }

  /** Takes a user away from {@code key}; with none left it is no longer kept. */
  public void release(KeptKey key) {
    synchronized (kept) {
      synchronized (key) {
        if (key.users > 0 && --key.users == 0) {
          kept.remove(key.what, key);
          cancelRetry(key);
          key.notifyAll();
        }
      }
    }
  }

  /**
   * Redis may have lost every key: none is confirmed until saved again. Runs on Lettuce's threads.
   */
  void unconfirmAll() {
    epoch.incrementAndGet();
  }

  /** Saves again, now, every key that is not confirmed. */
  void confirmAll() {
    if (closed) {
      return;
    }
    List<KeptKey> all;
    synchronized (kept) {
      all = List.copyOf(kept.values());
    }
    all.forEach(this::kick);
  }

  /**
   * Starts a save of {@code key} now, unless it is confirmed; after the one under way, if there is
   * one.
   */
  private void kick(KeptKey key) {
    kick(key, true);
  }

  /**
   * Starts a save of {@code key} now, unless it is confirmed or one is under way; {@code again}:
   * and if one is, another once it has ended.
   */
  void kick(KeptKey key, boolean again) {
    synchronized (key) {
      if (closed || key.users == 0) {
        return;
      }
      if (key.inFlight) {
        key.again |= again;
        return;
      }
      cancelRetry(key);
      if (key.isConfirmed()) {
        return;
      }
      key.inFlight = true;
    }
    attempt(key);
  }

  private void attempt(KeptKey key) {
    long started = epoch.get();
    CompletableFuture<?> saving;
    try {
      saving = requireNonNull(key.save.get(), "a save's future");
    } catch (RuntimeException e) {
      saving = CompletableFuture.failedFuture(e);
    }
    Futures.whenDone(saving, (done, failure) -> settle(key, started, failure));
  }

  /** What follows a try: confirmed, or tried again (now, or after a wait). */
  private void settle(KeptKey key, long started, @Nullable Throwable failure) {
    boolean now = false;
    synchronized (key) {
      key.inFlight = false;
      key.attempts++;
      key.notifyAll();
      if (closed || key.users == 0) {
        return;
      }
      if (failure == null) {
        key.failures = 0;
        key.refusal = null;
        key.failure = null;
        if (epoch.get() == started) {
          key.confirmedEpoch = started;
          if (key.logged != null) {
            key.logged = null;
            LOG.log(
                Level.INFO,
                "saved "
                    + key.what
                    + " to Redis at "
                    + session.address()
                    + " again; writes that need it use it again");
          }
        } else {
          now = true;
        }
      } else {
        Throwable cause = unwrap(failure);
        boolean retryable = isRetryable(cause);
        key.failures++;
        String reason = reason(cause);
        key.failure = reason;
        if (retryable) {
          if (key.logged == null) {
            key.logged = "retrying";
            LOG.log(
                Level.WARNING,
                "could not save "
                    + key.what
                    + " to Redis at "
                    + session.address()
                    + " ("
                    + reason
                    + "); trying again until Redis takes it; until then "
                    + key.meanwhile);
          }
        } else {
          // Redis holds something else under the key now (or refuses it): no longer confirmed.
          key.confirmedEpoch = -1;
          key.refusal = reason;
          if (!reason.equals(key.logged)) {
            key.logged = reason;
            LOG.log(
                Level.ERROR,
                "Redis at "
                    + session.address()
                    + " refused to save "
                    + key.what
                    + ": "
                    + reason
                    + "; trying again every "
                    + REFUSED_RETRY / 1000
                    + " s and after every reconnection; until then "
                    + key.refusedMeanwhile());
          }
        }
        long delay =
            retryable
                ? Math.min(LONGEST_RETRY, FIRST_RETRY << Math.min(10, key.failures - 1))
                : REFUSED_RETRY;
        if (!key.again) {
          key.retry = schedule(key, delay);
        }
      }
      if (key.again) {
        key.again = false;
        now = true;
      }
      if (now) {
        cancelRetry(key);
        key.inFlight = true;
      }
    }
    if (now) {
      attempt(key);
    }
  }

  private @Nullable ScheduledFuture<?> schedule(KeptKey key, long delayMillis) {
    try {
      return session.schedule(
          () -> {
            synchronized (key) {
              key.retry = null;
            }
            kick(key);
          },
          delayMillis);
    } catch (RuntimeException e) {
      // The session's executor is shutting down: this Stowage is being closed.
      return null;
    }
  }

  private static void cancelRetry(KeptKey key) {
    ScheduledFuture<?> retry = key.retry;
    if (retry != null) {
      retry.cancel(false);
      key.retry = null;
    }
  }

  /**
   * Whether a save that failed with {@code error} may succeed later without anyone's help: Redis
   * was unreachable, too slow, or could not take writes now (loading, busy with a script, a
   * replica, a cluster without the slot's master, out of memory).
   */
  @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the chain
  static boolean isRetryable(Throwable error) {
    Throwable e = error;
    for (int depth = 0;
        e != null && depth < 10;
        depth++, e = e.getCause() == e ? null : e.getCause()) {
      if (e instanceof RedisCommandExecutionException) {
        String reply = String.valueOf(e.getMessage());
        return RedisErrors.isUnavailableReply(reply)
            || reply.startsWith("BUSY")
            || reply.startsWith("READONLY")
            || reply.startsWith("OOM")
            || reply.startsWith("NOREPLICAS");
      }
      if (e instanceof CacheUnavailableException
          || e instanceof RedisException
          || e instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  /** Redis's own words for a failure, without the layers that wrapped them. */
  @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the chain
  private static String reason(Throwable error) {
    Throwable e = error;
    for (int depth = 0;
        e != null && depth < 10;
        depth++, e = e.getCause() == e ? null : e.getCause()) {
      if (e instanceof RedisException && e.getMessage() != null) {
        return e.getMessage();
      }
    }
    return RedisErrors.causeChain(error);
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Stops every retry and the next verify pass, and wakes every writer that waits. Idempotent. */
  @Override
  public void close() {
    closed = true;
    ScheduledFuture<?> next = nextVerify;
    if (next != null) {
      next.cancel(false);
    }
    List<KeptKey> all;
    synchronized (kept) {
      all = List.copyOf(kept.values());
    }
    for (KeptKey key : all) {
      synchronized (key) {
        cancelRetry(key);
        key.notifyAll();
      }
    }
  }
}
