package dev.stowage.internal.feed;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncFeed;
import dev.stowage.Feed;
import dev.stowage.Feed.Entry;
import dev.stowage.StowageException;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.redis.ChunkWindow;
import dev.stowage.internal.redis.WriteCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one implementation of a feed, on the session's shared connection, in buckets of {@value
 * BucketKeys#BUCKET} consecutive scores: every operation is asynchronous here, and {@link
 * BlockingFeed} waits for it.
 *
 * <p><b>Layout</b> (also in {@code docs/ARCHITECTURE.md}). Entry {@code s} lives in the list {@code
 * <key>:b:<s / 64>}, whose elements are the bucket's entries in ascending score order, each the
 * score as a varint followed by the value's envelope; the sorted set {@code <key>} indexes the
 * buckets that hold entries (member and score the bucket number). A Redis list of a few dozen small
 * elements is a packed listpack costing a few bytes per element, where a sorted set costs about a
 * hundred per member; a page is still one round trip, a script that walks the index from the newest
 * bucket and cuts the page out of one or two lists with {@code LRANGE} (two, when the page reaches
 * buckets this object has not seen yet: every key a script touches arrives in {@code KEYS}, see
 * {@link BucketKeys}). Writes keep every bucket sorted whatever runs concurrently: {@code add} is
 * one script (the counter's {@code HINCRBY} and the {@code RPUSH}), and {@code addAll} and {@code
 * putAll} store each entry at its place.
 */
public final class RedisFeed<V> implements AsyncFeed<V> {
  /**
   * A page of at least this many stored bytes is decoded on the session's decode threads rather
   * than on the I/O thread of the connection that every cache and feed of the {@code Stowage}
   * shares: decoding it costs more than the hand-over, and would hold up every other reply
   * meanwhile.
   */
  static final int DECODE_ELSEWHERE_BYTES = 4096;

  private final RedisSession session;
  private final FeedSettings<V> settings;
  private final WriteCodec<V> codec;
  private final String owner;
  private final byte[] counterKey;
  private final byte[] counterField;
  private final BucketKeys bucketKeys;
  private final FeedFailures failures;
  private final PageDecoder<V> decoder;
  private final BucketSealer<V> sealer;
  private final NearPages<V> nearPages;
  private final FeedScripts<V> scripts;
  private final BlockingFeed<V> blocking;

  public RedisFeed(RedisSession session, FeedSettings<V> settings) {
    this.session = session;
    this.settings = settings;
    this.codec = settings.codec();
    this.owner = "feed '" + settings.name() + "'";
    this.counterKey = utf8(settings.counterKey());
    this.counterField = utf8(settings.counterField());
    this.bucketKeys = new BucketKeys(settings.key());
    this.failures = new FeedFailures(settings.key(), owner);
    this.decoder = new PageDecoder<>(codec, failures);
    this.sealer = new BucketSealer<>(session, settings, owner, bucketKeys, failures, decoder);
    this.nearPages = new NearPages<>(settings.key(), settings.near());
    this.scripts = new FeedScripts<>(session, settings, owner, bucketKeys, failures, sealer);
    this.blocking = new BlockingFeed<>(this);
  }

  /** The blocking view. */
  public Feed<V> blocking() {
    return blocking;
  }

  @Override
  public Feed<V> synchronous() {
    return blocking;
  }

  RedisSession session() {
    return session;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String name() {
    return settings.name();
  }

  String key() {
    return settings.key();
  }

  /** What each operation is called in its failures, here and in the blocking view's waits. */
  String describeAdd() {
    return "adding to " + owner;
  }

  String describeAddAll(int n) {
    return "appending " + n + " members to " + owner;
  }

  String describePutAll(int n) {
    return "storing " + n + " members at their scores in " + owner;
  }

  String describePage(int page, int size) {
    return "page " + page + " of " + size + " of " + owner;
  }

  String describeRemove(long score) {
    return "removing score " + score + " of " + owner;
  }

  String describeSize() {
    return "counting the entries of " + owner;
  }

  String describeClear() {
    return "clearing " + owner;
  }

  private byte[] encode(V value) {
    requireNonNull(value, "value");
    try {
      return codec.encode(value);
    } catch (StowageException e) {
      throw e.addContext(owner);
    }
  }

  @Override
  public CompletableFuture<Long> add(V value) {
    return nearPages.dropAfter(started(() -> addAsync(value)));
  }

  private CompletableFuture<Long> addAsync(V value) {
    byte[] envelope = encode(value);
    return session
        .translated(scripts.append(envelope, describeAdd()), describeAdd())
        .thenApply(
            reply -> {
              long first = check((Long) reply.get(0), 1);
              bucketKeys.counterAtLeast(first);
              List<BucketSealer.FullBucket> full = sealer.fullBuckets(reply);
              if (!full.isEmpty()) {
                sealer.inBackground(sealer.seal(full));
              }
              return first;
            });
  }

  private long check(long first, int n) {
    long last = first + n - 1;
    if (first < 1 || last > FeedLayout.MAX_SCORE) {
      throw new StowageException(
          owner
              + ": the counter "
              + settings.counterKey()
              + "/"
              + settings.counterField()
              + " gave scores "
              + first
              + " to "
              + last
              + "; scores must be 1 to 2^53");
    }
    return first;
  }

  @Override
  public CompletableFuture<List<Long>> addAll(List<? extends V> values) {
    return nearPages.dropAfter(started(() -> addAllAsync(values)));
  }

  /** The chunks, and so the round trips, of a bulk write of {@code n} values. */
  int chunks(int n) {
    return Math.max(1, (n + settings.chunkSize() - 1) / settings.chunkSize());
  }

  /**
   * One {@code HINCRBY} reserves the values' scores, then one {@code put.lua} script per chunk
   * stores them in their buckets. Chunks may reach Redis out of order, and another writer's entries
   * may land between them; the script inserts each entry at its place, so buckets stay sorted and
   * the last value is the newest.
   */
  private CompletableFuture<List<Long>> addAllAsync(List<? extends V> values) {
    requireNonNull(values, "values");
    int n = values.size();
    if (n == 0) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<byte[]> envelopes = codec.encodeAll(values, i -> owner);
    String reserve =
        "HINCRBY " + settings.counterKey() + " " + settings.counterField() + " of " + owner;
    return session
        .call(reserve, c -> c.hincrby(counterKey, counterField, n))
        .thenCompose(
            last -> {
              long first = check(last - n + 1, n);
              bucketKeys.counterAtLeast(last);
              int chunk = settings.chunkSize();
              int chunks = (n + chunk - 1) / chunk;
              CompletableFuture<Void> all =
                  ChunkWindow.run(
                      chunks,
                      index -> {
                        int from = index * chunk;
                        int to = Math.min(n, from + chunk);
                        List<byte[]> pairs = new ArrayList<>(2 * (to - from));
                        for (int i = from; i < to; i++) {
                          long score = first + i;
                          pairs.add(utf8(Long.toString(score)));
                          pairs.add(FeedLayout.member(score, envelopes.get(i)));
                        }
                        return scripts.put(pairs);
                      });
              return session
                  .translated(all, describeAddAll(n))
                  .thenApply(
                      done -> {
                        List<Long> scores = new ArrayList<>(n);
                        for (int i = 0; i < n; i++) {
                          scores.add(first + i);
                        }
                        return scores;
                      });
            });
  }

  @Override
  public CompletableFuture<Void> putAll(Map<Long, ? extends V> valuesByScore) {
    return nearPages.dropAfter(started(() -> putAllAsync(valuesByScore)));
  }

  private CompletableFuture<Void> putAllAsync(Map<Long, ? extends V> valuesByScore) {
    requireNonNull(valuesByScore, "valuesByScore");
    List<Long> scores = new ArrayList<>(valuesByScore.size());
    for (Long score : valuesByScore.keySet()) {
      scores.add(checkScore(requireNonNull(score, "scores contain null")));
    }
    List<byte[]> envelopes = codec.encodeAll(new ArrayList<>(valuesByScore.values()), i -> owner);
    List<byte[]> args = new ArrayList<>(valuesByScore.size() * 2);
    for (int i = 0; i < scores.size(); i++) {
      args.add(utf8(Long.toString(scores.get(i))));
      args.add(FeedLayout.member(scores.get(i), envelopes.get(i)));
    }
    if (args.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    int perChunk = settings.chunkSize() * 2;
    int chunks = (args.size() + perChunk - 1) / perChunk;
    CompletableFuture<Void> all =
        ChunkWindow.run(
            chunks,
            index -> {
              List<byte[]> chunk =
                  args.subList(index * perChunk, Math.min(args.size(), (index + 1) * perChunk));
              return scripts.put(chunk);
            });
    return session.translated(all, describePutAll(valuesByScore.size()));
  }

  /**
   * {@code score}, if a feed can hold it: every operation that takes a score refuses the same ones,
   * with the same message.
   *
   * @throws IllegalArgumentException if it is below 1 or above 2^53
   */
  private long checkScore(long score) {
    if (score < 1 || score > FeedLayout.MAX_SCORE) {
      throw new IllegalArgumentException(owner + ": scores must be 1 to 2^53, got " + score);
    }
    return score;
  }

  private static long[] range(int page, int size) {
    if (page < 1) {
      throw new IllegalArgumentException("page must be 1 or more, got " + page);
    }
    if (size < 1 || size > Feed.MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "size must be 1 to " + Feed.MAX_PAGE_SIZE + ", got " + size);
    }
    long start = (long) (page - 1) * size;
    return new long[] {start, start + size - 1};
  }

  /** The page script's reply: open buckets' members, and sealed buckets' parts. */
  private CompletableFuture<List<Object>> members(int page, int size) {
    long[] range = range(page, size);
    return session.translated(scripts.page(range[0], size), describePage(page, size));
  }

  @Override
  public CompletableFuture<List<Entry<V>>> page(int page, int size) {
    return page(page, size, null);
  }

  /**
   * Page {@code page} of {@code size}, decoded by {@code decodeOn}; when it is null, where the
   * reply completes, or on the session's decode threads for a page of {@link
   * #DECODE_ELSEWHERE_BYTES} or more. The blocking view passes the caller's thread.
   *
   * @throws IllegalArgumentException at once, for a page or size out of range
   */
  CompletableFuture<List<Entry<V>>> page(int page, int size, @Nullable Executor decodeOn) {
    range(page, size);
    return started(() -> pageAsync(page, size, decodeOn));
  }

  private CompletableFuture<List<Entry<V>>> pageAsync(
      int page, int size, @Nullable Executor decodeOn) {
    String pageKey = nearPages.pageKey(page, size);
    List<Entry<V>> kept = nearPages.kept(pageKey);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    long stamp = nearPages.stamp(pageKey);
    return members(page, size)
        .thenCompose(
            parts -> {
              List<byte[]> members = new ArrayList<>(parts.size());
              List<byte[]> sealed = new ArrayList<>(0);
              for (Object part : parts) {
                if (part instanceof byte[] member) {
                  members.add(member);
                } else if (part instanceof List<?> sealedPart
                    && sealedPart.get(0) instanceof byte[] value) {
                  sealed.add(value);
                }
              }
              CompletableFuture<Void> loaded =
                  settings.preload().load(members, PageDecoder::envelopeStart);
              if (!sealed.isEmpty()) {
                loaded =
                    CompletableFuture.allOf(loaded, settings.preload().load(sealed, value -> 0));
              }
              Function<Void, List<Entry<V>>> decodeAndKeep =
                  done -> nearPages.keep(pageKey, stamp, decoder.decode(parts));
              if (decodeOn != null) {
                return loaded.thenApplyAsync(decodeAndKeep, decodeOn);
              }
              // A sealed bucket's entries may name schemas that only its decompressed payload
              // shows, which
              // could only be looked up by blocking: never on the I/O thread.
              return sealed.isEmpty() && PageDecoder.storedBytes(members) < DECODE_ELSEWHERE_BYTES
                  ? loaded.thenApply(decodeAndKeep)
                  : loaded.thenApplyAsync(decodeAndKeep, session.decodeExecutor());
            });
  }

  /** Completes once no seal runs in the background any more; for tests and benchmarks. */
  public CompletableFuture<Void> sealsSettled() {
    return sealer.sealsSettled();
  }

  /** The bytes of the sealed buckets kept decompressed (stored values and members); for tests. */
  public long keptBucketBytes() {
    return decoder.keptBucketBytes();
  }

  /** Near cache hits and misses: {@code [hits, misses]}, zeros without a near cache. */
  public long[] nearCounts() {
    return nearPages.counts();
  }

  /**
   * The sealed value of a bucket's members, or null when it would not be sealed; see {@link
   * BucketSealer#sealedValue}.
   */
  byte @Nullable [] sealedValue(List<byte[]> members) {
    return sealer.sealedValue(members);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException at once, for a score below 1 or above 2^53
   */
  @Override
  public CompletableFuture<Boolean> remove(long score) {
    checkScore(score);
    return nearPages.dropAfter(scripts.remove(score, describeRemove(score)));
  }

  @Override
  public CompletableFuture<Long> size() {
    return session
        .translated(scripts.index(FeedScripts.SIZE, -1, describeSize()), describeSize())
        .thenApply(
            reply -> {
              for (int i = 1; i + 1 < reply.size(); i += 2) {
                failures.lostBucket((Long) reply.get(i), (Long) reply.get(i + 1));
              }
              return (Long) reply.get(0);
            });
  }

  @Override
  public CompletableFuture<Void> clear() {
    return nearPages.dropAfter(
        session
            .translated(scripts.index(FeedScripts.CLEAR, 0, describeClear()), describeClear())
            .thenApply(
                done -> {
                  bucketKeys.cleared();
                  return null;
                }));
  }

  @Override
  public CompletableFuture<OptionalLong> reserveScores(int count, long floor) {
    if (count < 1 || floor < 0 || floor > FeedLayout.MAX_SCORE) {
      throw new IllegalArgumentException(
          owner
              + ": reserve 1 or more scores above a floor of 0 to 2^53, got "
              + count
              + " above "
              + floor);
    }
    String what = "reserving " + count + " scores of " + owner;
    return session
        .translated(
            FeedScripts.RESERVE.<Long>run(
                session,
                new byte[][] {counterKey},
                counterField,
                utf8(Integer.toString(count)),
                utf8(Long.toString(floor)),
                FeedScripts.MAX_SCORE_ARG),
            what)
        .thenApply(
            last ->
                last < 0 ? OptionalLong.empty() : OptionalLong.of(check(last - count + 1, count)));
  }

  @Override
  public CompletableFuture<Long> raiseCounter(long atLeast) {
    if (atLeast < 0 || atLeast > FeedLayout.MAX_SCORE) {
      throw new IllegalArgumentException(owner + ": a counter is 0 to 2^53, got " + atLeast);
    }
    return session.translated(
        FeedScripts.RAISE.<Long>run(
            session, new byte[][] {counterKey}, counterField, utf8(Long.toString(atLeast))),
        "raising the counter of " + owner);
  }

  /**
   * Runs {@code start}; an exception it throws (a value that cannot be encoded) fails the future,
   * except the caller's own mistakes (null, a score out of range), which are thrown at once.
   */
  private static <T> CompletableFuture<T> started(Supplier<CompletableFuture<T>> start) {
    try {
      return start.get();
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Members skipped since this feed was built because they could not be decoded. */
  @Override
  public long decodeFailures() {
    return failures.count();
  }

  WriteCodec<V> codec() {
    return codec;
  }

  @Override
  public String toString() {
    return "AsyncFeed[" + settings.name() + ", key " + settings.key() + "]";
  }
}
