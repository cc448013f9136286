package dev.stowage.internal.feed;

import dev.stowage.StowageException;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.redis.LuaScript;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * Runs a feed's Lua scripts with the keys and arguments they take, again when a script asks for
 * other buckets ({@link BucketKeys}) or finds the buckets it writes into sealed ({@link
 * BucketSealer}). The scripts are read once from the {@code .lua} resources beside this package;
 * each file says what its {@code KEYS} and {@code ARGV} hold and what it returns. Those that touch
 * buckets take each bucket's keys in {@code KEYS} and share the functions of {@code functions.lua},
 * which comes first. Thread-safe.
 */
final class FeedScripts<V> {
  private static final String FUNCTIONS = "functions.lua";

  /** Appends members with new scores from the counter ({@code append.lua}). */
  static final LuaScript APPEND = withFunctions("append.lua", ScriptOutputType.MULTI);

  /** Stores members at given scores, opening sealed buckets ({@code put.lua}). */
  static final LuaScript PUT = withFunctions("put.lua", ScriptOutputType.MULTI);

  /** Members from the newest ({@code page.lua}). */
  static final LuaScript PAGE = withFunctions("page.lua", ScriptOutputType.MULTI);

  /** Removes the entry at a score ({@code remove.lua}). */
  static final LuaScript REMOVE = withFunctions("remove.lua", ScriptOutputType.MULTI);

  /** The number of entries ({@code size.lua}). */
  static final LuaScript SIZE = withFunctions("size.lua", ScriptOutputType.MULTI);

  /** Removes every bucket and the index ({@code clear.lua}). */
  static final LuaScript CLEAR = withFunctions("clear.lua", ScriptOutputType.MULTI);

  /** Seals a full bucket ({@code seal.lua}). */
  static final LuaScript SEAL =
      LuaScript.load(FeedScripts.class, ScriptOutputType.INTEGER, "seal.lua");

  /** Reserves scores above a floor ({@code reserve.lua}). */
  static final LuaScript RESERVE =
      LuaScript.load(FeedScripts.class, ScriptOutputType.INTEGER, "reserve.lua");

  /** Raises the counter, never lowering it ({@code raise.lua}). */
  static final LuaScript RAISE =
      LuaScript.load(FeedScripts.class, ScriptOutputType.INTEGER, "raise.lua");

  /** Times a write finds its buckets sealed and opens them before it gives up. */
  static final int MAX_ATTEMPTS = 10;

  private static final byte[] SEAL_ON = {'1'};
  private static final byte[] SEAL_OFF = {'0'};
  private static final byte[] BUCKET_ARG = utf8(Integer.toString(BucketKeys.BUCKET));
  private static final byte[] HOLD_ARG = utf8(Integer.toString(BucketSealer.HOLD_MILLIS));
  static final byte[] MAX_SCORE_ARG = utf8(Long.toString(FeedLayout.MAX_SCORE));

  private final RedisSession session;
  private final FeedSettings<V> settings;
  private final String owner;
  private final byte[] key;
  private final byte[] counterKey;
  private final byte[] counterField;
  private final BucketKeys bucketKeys;
  private final FeedFailures failures;
  private final BucketSealer<V> sealer;

  FeedScripts(
      RedisSession session,
      FeedSettings<V> settings,
      String owner,
      BucketKeys bucketKeys,
      FeedFailures failures,
      BucketSealer<V> sealer) {
    this.session = session;
    this.settings = settings;
    this.owner = owner;
    this.key = utf8(settings.key());
    this.counterKey = utf8(settings.counterKey());
    this.counterField = utf8(settings.counterField());
    this.bucketKeys = bucketKeys;
    this.failures = failures;
    this.sealer = sealer;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static LuaScript withFunctions(String name, ScriptOutputType output) {
    return LuaScript.load(FeedScripts.class, output, FUNCTIONS, name);
  }

  /** Runs {@code append.lua} for one envelope; {@code what} names the add in failures. */
  CompletableFuture<List<Object>> append(byte[] envelope, String what) {
    return append(envelope, what, BucketKeys.LOOKAHEAD, 1);
  }

  /**
   * Runs {@code append.lua} with the keys of the buckets after the counter as last seen, and {@code
   * lookahead} scores more; when the counter has moved past them, again with the keys of the
   * buckets after it (and a longer look ahead, for a counter that other writers move fast).
   */
  private CompletableFuture<List<Object>> append(
      byte[] envelope, String what, long lookahead, int round) {
    long[] buckets = bucketKeys.forAppend(1, lookahead);
    List<byte[]> argv = new ArrayList<>(buckets.length + 6);
    argv.add(counterField);
    argv.add(sealFlag());
    argv.add(BUCKET_ARG);
    argv.add(MAX_SCORE_ARG);
    BucketKeys.addNumbers(argv, buckets);
    argv.add(envelope);
    return FeedScripts.APPEND
        .<List<Object>>run(
            session, bucketKeys.keys(buckets, key, counterKey), argv.toArray(byte[][]::new))
        .thenCompose(
            reply -> {
              if (!(reply.get(0) instanceof byte[])) {
                return CompletableFuture.completedFuture(reply);
              }
              BucketKeys.checkRounds(round, what);
              bucketKeys.counterIs((Long) reply.get(1));
              return append(
                  envelope, what, Math.min(4 * lookahead, 64L * BucketKeys.BUCKET), round + 1);
            });
  }

  /** Runs {@code page.lua}: the parts of the page that skips {@code skip} entries. */
  CompletableFuture<List<Object>> page(long skip, int size) {
    return page(skip, size, 1);
  }

  /**
   * Runs {@code page.lua} with the keys of the index's buckets as last seen; when the page reaches
   * others, again with theirs.
   */
  private CompletableFuture<List<Object>> page(long skip, int size, int round) {
    long[] buckets = bucketKeys.forPage();
    List<byte[]> argv = new ArrayList<>(buckets.length + 3);
    argv.add(utf8(Long.toString(skip)));
    argv.add(utf8(Integer.toString(size)));
    BucketKeys.addNumbers(argv, buckets);
    return FeedScripts.PAGE
        .<List<Object>>run(session, bucketKeys.keys(buckets, key), argv.toArray(byte[][]::new))
        .thenCompose(
            reply -> {
              if ((Long) reply.get(0) == 1) {
                return CompletableFuture.completedFuture(reply.subList(1, reply.size()));
              }
              BucketKeys.checkRounds(round, "reading a page of " + owner);
              bucketKeys.pageReached(reply);
              return page(skip, size, round + 1);
            });
  }

  private byte[] sealFlag() {
    return settings.seal() ? SEAL_ON : SEAL_OFF;
  }

  /** Runs {@code put.lua} with score and member {@code pairs}; see below. */
  CompletableFuture<Void> put(List<byte[]> pairs) {
    return put(pairs, List.of(), 1);
  }

  /**
   * Runs {@code put.lua} with score and member {@code pairs}, opening the sealed buckets of {@code
   * openings} in the same script; when it finds other sealed buckets (or these sealed again), reads
   * them and runs it again. Completes once the buckets it filled are sealed (or left open, when
   * they cannot be).
   */
  private CompletableFuture<Void> put(
      List<byte[]> pairs, List<BucketSealer.Opening> openings, int attempt) {
    long[] buckets =
        BucketKeys.ofScores(
            IntStream.range(0, pairs.size() / 2)
                .mapToLong(
                    i -> Long.parseLong(new String(pairs.get(2 * i), StandardCharsets.US_ASCII))));
    List<byte[]> argv = new ArrayList<>(pairs.size() + buckets.length + 6);
    argv.add(counterField);
    argv.add(sealFlag());
    argv.add(BUCKET_ARG);
    argv.add(HOLD_ARG);
    BucketKeys.addNumbers(argv, buckets);
    argv.add(utf8(Integer.toString(openings.size())));
    for (BucketSealer.Opening opening : openings) {
      argv.add(utf8(Long.toString(opening.bucket())));
      argv.add(utf8(opening.digest()));
      argv.add(utf8(Integer.toString(opening.members().size())));
      argv.addAll(opening.members());
    }
    argv.addAll(pairs);
    return FeedScripts.PUT
        .<List<Object>>run(
            session, bucketKeys.keys(buckets, key, counterKey), argv.toArray(byte[][]::new))
        .thenCompose(
            reply -> {
              if ((Long) reply.get(0) == 1) {
                for (BucketSealer.Opening opening : openings) {
                  sealer.sealLater(opening.bucket(), BucketSealer.RESEAL_AFTER);
                }
                return sealer.seal(sealer.fullBuckets(reply));
              }
              List<Long> sealed = new ArrayList<>(reply.size() - 1);
              for (int i = 1; i < reply.size(); i++) {
                sealed.add((Long) reply.get(i));
              }
              checkAttempts(attempt, sealed);
              List<CompletableFuture<BucketSealer.@Nullable Opening>> reads =
                  sealed.stream().map(sealer::readSealed).toList();
              return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                  .thenCompose(
                      done -> {
                        List<BucketSealer.Opening> next = new ArrayList<>(reads.size());
                        for (CompletableFuture<BucketSealer.@Nullable Opening> read : reads) {
                          BucketSealer.Opening opening = read.join();
                          if (opening != null) {
                            next.add(opening);
                          }
                        }
                        return put(pairs, next, attempt + 1);
                      });
            });
  }

  /**
   * Gives up a write that found its buckets sealed again at each attempt. Each attempt holds the
   * buckets it finds sealed for {@link BucketSealer#HOLD_MILLIS}, and no writer seals a held
   * bucket, so this takes attempts that each took longer than the hold (or writers of a version
   * before holds).
   */
  private void checkAttempts(int attempt, List<Long> buckets) {
    if (attempt >= MAX_ATTEMPTS) {
      throw new StowageException(
          owner
              + ": buckets "
              + buckets
              + " were sealed again each of the "
              + attempt
              + " times they were opened for this write, although each attempt held them for "
              + BucketSealer.HOLD_MILLIS
              + " ms; nothing was written");
    }
  }

  /** Runs {@code remove.lua} for the entry at {@code score}; {@code what} names it in failures. */
  CompletableFuture<Boolean> remove(long score, String what) {
    return remove(score, what, null, 1);
  }

  /**
   * Runs {@code remove.lua}, opening the entry's sealed bucket in the same script when {@code
   * opening} is its value as read; when the script finds the bucket sealed (or sealed again), reads
   * it and runs it again.
   */
  private CompletableFuture<Boolean> remove(
      long score, String what, BucketSealer.@Nullable Opening opening, int attempt) {
    byte[][] argv = new byte[opening == null ? 3 : opening.members().size() + 4][];
    argv[0] = utf8(Long.toString(score));
    argv[1] = BUCKET_ARG;
    argv[2] = HOLD_ARG;
    if (opening != null) {
      argv[3] = utf8(opening.digest());
      for (int i = 0; i < opening.members().size(); i++) {
        argv[i + 4] = opening.members().get(i);
      }
    }
    long bucket = FeedLayout.bucketOf(score);
    return session
        .translated(
            FeedScripts.REMOVE.<List<Object>>run(
                session, bucketKeys.keys(new long[] {bucket}, key), argv),
            what)
        .thenCompose(
            reply -> {
              long removed = (Long) reply.get(0);
              long lost = (Long) reply.get(1);
              if (lost > 0) {
                failures.lostBucket(bucket, lost);
              }
              if (removed >= 0) {
                return CompletableFuture.completedFuture(removed > 0);
              }
              checkAttempts(attempt, List.of(bucket));
              return sealer
                  .readSealed(bucket)
                  .thenCompose(read -> remove(score, what, read, attempt + 1));
            });
  }

  /** Runs {@code script} over the whole index; see below. */
  CompletableFuture<List<Object>> index(LuaScript script, long stale, String what) {
    return index(script, stale, what, 1);
  }

  /**
   * Runs a script over the whole index ({@code size.lua}, {@code clear.lua}) with the keys of the
   * index's buckets as last seen; when it answers {@code stale} first, the index holds others, and
   * it runs again with theirs.
   */
  private CompletableFuture<List<Object>> index(
      LuaScript script, long stale, String what, int round) {
    long[] buckets = bucketKeys.forIndex();
    List<byte[]> argv = new ArrayList<>(buckets.length + 1);
    BucketKeys.addNumbers(argv, buckets);
    return script
        .<List<Object>>run(session, bucketKeys.keys(buckets, key), argv.toArray(byte[][]::new))
        .thenCompose(
            reply -> {
              if ((Long) reply.get(0) != stale) {
                return CompletableFuture.completedFuture(reply);
              }
              BucketKeys.checkRounds(round, what);
              bucketKeys.indexIs(reply);
              return index(script, stale, what, round + 1);
            });
  }
}
