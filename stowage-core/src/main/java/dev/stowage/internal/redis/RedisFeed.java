package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncFeed;
import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeException;
import dev.stowage.Feed;
import dev.stowage.Feed.Entry;
import dev.stowage.FeedLayout;
import dev.stowage.MissingLibraryException;
import dev.stowage.StowageException;
import dev.stowage.StowageKeys;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one implementation of a feed, on the session's shared connection, in buckets of
 * {@value #BUCKET} consecutive scores: every operation is asynchronous here, and {@link BlockingFeed}
 * waits for it.
 *
 * <p><b>Layout</b> (also in {@code docs/ARCHITECTURE.md}). Entry {@code s} lives in the list
 * {@code <key>:b:<s / 64>}, whose elements are the bucket's entries in ascending score order, each
 * the score as a varint followed by the value's envelope; the sorted set {@code <key>} indexes the
 * buckets that hold entries (member and score the bucket number). A Redis list of a few dozen small
 * elements is a packed listpack costing a few bytes per element, where a sorted set costs about a
 * hundred per member; a page is still one round trip, a script that walks the index from the newest
 * bucket and cuts the page out of one or two lists with {@code LRANGE}. Writes keep every bucket
 * sorted whatever runs concurrently: {@code add} is one script (the counter's {@code HINCRBY} and
 * the {@code RPUSH}), and {@code addAll} and {@code putAll} store each entry at its place.
 */
public final class RedisFeed<V> implements AsyncFeed<V> {
  /** A script of this feed, with {@link StowageKeys#FEED_BUCKET_INFIX} where it says {@code {bucket}}. */
  private static LuaScript script(String text, ScriptOutputType type) {
    return new LuaScript(text.replace("{bucket}", StowageKeys.FEED_BUCKET_INFIX), type);
  }

  /** Scores per bucket: {@link FeedLayout#BUCKET_SIZE}. */
  static final int BUCKET = FeedLayout.BUCKET_SIZE;

  /** Lua: the score a member starts with (its varint prefix). */
  private static final String SCORE_OF = """
      local function score_of(m)
        local s, mul, i = 0, 1, 1
        while true do
          local c = string.byte(m, i)
          if c == nil then return -1 end
          s = s + (c % 128) * mul
          if c < 128 then return s end
          mul = mul * 128
          i = i + 1
          if i > 8 then return -1 end
        end
      end
      local function prefix(n)
        local p = {}
        while n >= 128 do
          p[#p + 1] = string.char(n % 128 + 128)
          n = math.floor(n / 128)
        end
        p[#p + 1] = string.char(n)
        return table.concat(p)
      end
      """;

  /** Appends members with new scores from the counter: KEYS index, counter; ARGV field, envelopes. */
  private static final LuaScript APPEND = script(SCORE_OF + """
      local n = #ARGV - 1
      local last = redis.call('HINCRBY', KEYS[2], ARGV[1], n)
      local first = last - n + 1
      for i = 1, n do
        local s = first + i - 1
        local b = math.floor(s / %1$d)
        if redis.call('RPUSH', KEYS[1] .. '{bucket}' .. b, prefix(s) .. ARGV[i + 1]) == 1 then
          redis.call('ZADD', KEYS[1], b, b)
        end
      end
      return first""".formatted(BUCKET), ScriptOutputType.INTEGER);

  /**
   * Stores members at given scores, replacing one already there, then raises the counter to the
   * largest: KEYS index, counter; ARGV field, then score and member pairs.
   */
  private static final LuaScript PUT = script(SCORE_OF + """
      local top = 0
      for i = 2, #ARGV, 2 do
        local s = tonumber(ARGV[i])
        local m = ARGV[i + 1]
        local b = math.floor(s / %1$d)
        local bk = KEYS[1] .. '{bucket}' .. b
        local tail = redis.call('LINDEX', bk, -1)
        if not tail then
          redis.call('RPUSH', bk, m)
          redis.call('ZADD', KEYS[1], b, b)
        elseif score_of(tail) < s then
          redis.call('RPUSH', bk, m)
        else
          local items = redis.call('LRANGE', bk, 0, -1)
          for j = 1, #items do
            local t = score_of(items[j])
            if t == s then
              redis.call('LSET', bk, j - 1, m)
              break
            elseif t > s then
              redis.call('LINSERT', bk, 'BEFORE', items[j], m)
              break
            end
          end
        end
        if s > top then top = s end
      end
      local c = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
      if c < top then redis.call('HSET', KEYS[2], ARGV[1], string.format('%%.0f', top)) end
      return 1""".formatted(BUCKET), ScriptOutputType.BOOLEAN);

  /**
   * Reserves scores above a floor: KEYS counter hash; ARGV field, count, floor. -1 when the counter
   * is missing (an integer, not nil, which RESP3 would read as a boolean), else the last score.
   */
  private static final LuaScript RESERVE = script("""
      local c = redis.call('HGET', KEYS[1], ARGV[1])
      if not c then return -1 end
      if tonumber(c) < tonumber(ARGV[3]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
      return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])""", ScriptOutputType.INTEGER);

  /** Raises the counter, never lowering it: KEYS counter hash; ARGV field, score. Returns the counter. */
  private static final LuaScript RAISE = script("""
      local c = redis.call('HGET', KEYS[1], ARGV[1])
      if not c or tonumber(c) < tonumber(ARGV[2]) then
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
        return tonumber(ARGV[2])
      end
      return tonumber(c)""", ScriptOutputType.INTEGER);

  /** Members from the newest: KEYS index; ARGV entries to skip, entries wanted. */
  private static final LuaScript PAGE = script("""
      local skip = tonumber(ARGV[1])
      local want = tonumber(ARGV[2])
      local out = {}
      local from = 0
      while want > 0 do
        local buckets = redis.call('ZREVRANGE', KEYS[1], from, from + 63)
        if #buckets == 0 then break end
        for _, b in ipairs(buckets) do
          local bk = KEYS[1] .. '{bucket}' .. b
          local len = redis.call('LLEN', bk)
          if skip >= len then
            skip = skip - len
          else
            local hi = len - 1 - skip
            local lo = math.max(0, hi - want + 1)
            local items = redis.call('LRANGE', bk, lo, hi)
            for i = #items, 1, -1 do out[#out + 1] = items[i] end
            want = want - #items
            skip = 0
            if want <= 0 then break end
          end
        end
        from = from + 64
      end
      return out""", ScriptOutputType.MULTI);

  /** Removes the entry at a score: KEYS index; ARGV score. */
  private static final LuaScript REMOVE = script(SCORE_OF + """
      local s = tonumber(ARGV[1])
      local b = math.floor(s / %1$d)
      local bk = KEYS[1] .. '{bucket}' .. b
      local items = redis.call('LRANGE', bk, 0, -1)
      for j = 1, #items do
        if score_of(items[j]) == s then
          redis.call('LREM', bk, 1, items[j])
          if redis.call('LLEN', bk) == 0 then redis.call('ZREM', KEYS[1], b) end
          return 1
        end
      end
      return 0""".formatted(BUCKET), ScriptOutputType.INTEGER);

  /** The number of entries: KEYS index. */
  private static final LuaScript SIZE = script("""
      local n = 0
      for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
        n = n + redis.call('LLEN', KEYS[1] .. '{bucket}' .. b)
      end
      return n""", ScriptOutputType.INTEGER);

  /** Removes every bucket and the index: KEYS index. */
  private static final LuaScript CLEAR = script("""
      for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
        redis.call('UNLINK', KEYS[1] .. '{bucket}' .. b)
      end
      return redis.call('UNLINK', KEYS[1])""", ScriptOutputType.INTEGER);

  private final RedisSession session;
  private final FeedSettings<V> settings;
  private final WriteCodec<V> codec;
  private final String owner;
  private final byte[] key;
  private final byte[] counterKey;
  private final byte[] counterField;
  private final LongAdder decodeFailures = new LongAdder();
  private final DecodeFailureLog failureLog;
  private final Tracking.@Nullable Reader near;
  private final BlockingFeed<V> blocking;

  public RedisFeed(RedisSession session, FeedSettings<V> settings) {
    this.session = session;
    this.settings = settings;
    this.codec = settings.codec();
    this.owner = "feed '" + settings.name() + "'";
    this.key = utf8(settings.key());
    this.counterKey = utf8(settings.counterKey());
    this.counterField = utf8(settings.counterField());
    this.failureLog = new DecodeFailureLog(owner);
    this.near = settings.near();
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

  String name() {
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
    return dropPages(started(() -> addAsync(value)));
  }

  private CompletableFuture<Long> addAsync(V value) {
    byte[] envelope = encode(value);
    String what = "adding to " + owner;
    return session.translated(APPEND.<Long>run(session, new byte[][] {key, counterKey}, counterField, envelope), what)
        .thenApply(first -> check(first, 1));
  }

  private long check(long first, int n) {
    long last = first + n - 1;
    if (first < 1 || last > FeedLayout.MAX_SCORE) {
      throw new StowageException(owner + ": the counter " + settings.counterKey() + "/" + settings.counterField()
          + " gave scores " + first + " to " + last + "; scores must be 1 to 2^53");
    }
    return first;
  }

  @Override
  public CompletableFuture<List<Long>> addAll(List<? extends V> values) {
    return dropPages(started(() -> addAllAsync(values)));
  }

  /** The chunks, and so the round trips, of a bulk write of {@code n} values. */
  int chunks(int n) {
    return Math.max(1, (n + settings.chunkSize() - 1) / settings.chunkSize());
  }

  /**
   * One {@code HINCRBY} reserves the values' scores, then one {@link #PUT} script per chunk stores
   * them in their buckets. Chunks may reach Redis out of order, and another writer's entries may
   * land between them; the script inserts each entry at its place, so buckets stay sorted and the
   * last value is the newest.
   */
  private CompletableFuture<List<Long>> addAllAsync(List<? extends V> values) {
    requireNonNull(values, "values");
    int n = values.size();
    if (n == 0) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<byte[]> envelopes = codec.encodeAll(values, i -> owner);
    String reserve = "HINCRBY " + settings.counterKey() + " " + settings.counterField() + " of " + owner;
    return session.call(reserve, c -> c.hincrby(counterKey, counterField, n)).thenCompose(last -> {
      long first = check(last - n + 1, n);
      int chunk = settings.chunkSize();
      int chunks = (n + chunk - 1) / chunk;
      CompletableFuture<Void> all = ChunkWindow.run(chunks, index -> {
        int from = index * chunk;
        int to = Math.min(n, from + chunk);
        byte[][] argv = new byte[2 * (to - from) + 1][];
        argv[0] = counterField;
        for (int i = from; i < to; i++) {
          long score = first + i;
          argv[2 * (i - from) + 1] = utf8(Long.toString(score));
          argv[2 * (i - from) + 2] = FeedLayout.member(score, envelopes.get(i));
        }
        return PUT.run(session, new byte[][] {key, counterKey}, argv);
      });
      return session.translated(all, describeAddAll(n)).thenApply(done -> {
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
    return dropPages(started(() -> putAllAsync(valuesByScore)));
  }

  private CompletableFuture<Void> putAllAsync(Map<Long, ? extends V> valuesByScore) {
    requireNonNull(valuesByScore, "valuesByScore");
    List<Long> scores = new ArrayList<>(valuesByScore.size());
    for (Long score : valuesByScore.keySet()) {
      if (requireNonNull(score, "scores contain null") < 1 || score > FeedLayout.MAX_SCORE) {
        throw new IllegalArgumentException(owner + ": scores must be 1 to 2^53, got " + score);
      }
      scores.add(score);
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
    CompletableFuture<Void> all = ChunkWindow.run(chunks, index -> {
      List<byte[]> chunk = args.subList(index * perChunk, Math.min(args.size(), (index + 1) * perChunk));
      byte[][] argv = new byte[chunk.size() + 1][];
      argv[0] = counterField;
      for (int i = 0; i < chunk.size(); i++) {
        argv[i + 1] = chunk.get(i);
      }
      return PUT.run(session, new byte[][] {key, counterKey}, argv);
    });
    return session.translated(all, describePutAll(valuesByScore.size()));
  }

  private static long[] range(int page, int size) {
    if (page < 1) {
      throw new IllegalArgumentException("page must be 1 or more, got " + page);
    }
    if (size < 1 || size > Feed.MAX_PAGE_SIZE) {
      throw new IllegalArgumentException("size must be 1 to " + Feed.MAX_PAGE_SIZE + ", got " + size);
    }
    long start = (long) (page - 1) * size;
    return new long[] {start, start + size - 1};
  }

  private CompletableFuture<List<byte[]>> members(int page, int size) {
    long[] range = range(page, size);
    return session.translated(PAGE.<List<byte[]>>run(session, new byte[][] {key},
        utf8(Long.toString(range[0])), utf8(Integer.toString(size))), describePage(page, size));
  }

  @Override
  public CompletableFuture<List<Entry<V>>> page(int page, int size) {
    return page(page, size, null);
  }

  /**
   * Page {@code page} of {@code size}, decoded by {@code decodeOn}; when it is null, where the reply
   * completes, or on the session's decode threads for a page of {@link #DECODE_ELSEWHERE_BYTES} or
   * more. The blocking view passes the caller's thread.
   *
   * @throws IllegalArgumentException at once, for a page or size out of range
   */
  CompletableFuture<List<Entry<V>>> page(int page, int size, @Nullable Executor decodeOn) {
    range(page, size);
    return started(() -> pageAsync(page, size, decodeOn));
  }

  /**
   * A page of at least this many stored bytes is decoded on the session's decode threads rather than
   * on the I/O thread of the connection that every cache and feed of the {@code Stowage} shares:
   * decoding it costs more than the hand-over, and would hold up every other reply meanwhile.
   */
  static final int DECODE_ELSEWHERE_BYTES = 4096;

  private CompletableFuture<List<Entry<V>>> pageAsync(int page, int size, @Nullable Executor decodeOn) {
    String pageKey = pageKey(page, size);
    List<Entry<V>> kept = keptPage(pageKey);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    long stamp = stamp(pageKey);
    return members(page, size).thenCompose(members -> {
      CompletableFuture<Void> loaded = settings.preload().load(members, member -> {
        long score = FeedLayout.score(member);
        return score < 0 ? -1 : FeedLayout.prefixSize(score);
      });
      Function<Void, List<Entry<V>>> decodeAndKeep = done -> keep(pageKey, stamp, members, decode(members));
      if (decodeOn != null) {
        return loaded.thenApplyAsync(decodeAndKeep, decodeOn);
      }
      return storedBytes(members) < DECODE_ELSEWHERE_BYTES ? loaded.thenApply(decodeAndKeep)
          : loaded.thenApplyAsync(decodeAndKeep, session.decodeExecutor());
    });
  }

  private static long storedBytes(List<byte[]> members) {
    long bytes = 0;
    for (byte[] member : members) {
      bytes += member.length;
    }
    return bytes;
  }

  // ---------------------------------------------------------------- near cache

  /** The near cache's key of a page: under the feed's key, so that the broadcast prefix covers it. */
  private @Nullable String pageKey(int page, int size) {
    return near == null ? null : settings.key() + "\u0000page:" + page + ":" + size;
  }

  // pageKey is null only when near is, which each of these checks first.
  @SuppressWarnings({"unchecked", "NullAway"})
  private @Nullable List<Entry<V>> keptPage(@Nullable String pageKey) {
    return near == null ? null : (List<Entry<V>>) near.store().get(pageKey);
  }

  @SuppressWarnings("NullAway")
  private long stamp(@Nullable String pageKey) {
    return near == null ? -1 : near.store().stamp(pageKey);
  }

  /**
   * Keeps a page just read, unless the feed changed since {@code stamp}, or one of its members
   * could not be decoded; returns it, unmodifiable.
   */
  @SuppressWarnings("NullAway") // as keptPage
  private List<Entry<V>> keep(@Nullable String pageKey, long stamp, List<byte[]> members, List<Entry<V>> entries) {
    List<Entry<V>> page = List.copyOf(entries);
    if (near != null && page.size() == members.size()) {
      near.store().keep(pageKey, stamp, page, (int) Math.min(Integer.MAX_VALUE, storedBytes(members)));
    }
    return page;
  }

  /** After a write through this feed: no kept page may be older than it. */
  private <T> CompletableFuture<T> dropPages(CompletableFuture<T> write) {
    return near == null ? write : write.whenComplete((done, failure) -> near.store().invalidateAll());
  }

  /** Near cache hits and misses: {@code [hits, misses]}, zeros without a near cache. */
  public long[] nearCounts() {
    return near == null ? new long[2] : new long[] {near.store().hits(), near.store().misses()};
  }

  private List<Entry<V>> decode(List<byte[]> members) {
    List<Entry<V>> entries = new ArrayList<>(members.size());
    for (byte[] member : members) {
      long score = FeedLayout.score(member);
      if (score < 0) {
        skip(member, "its score prefix is malformed");
        continue;
      }
      int offset = FeedLayout.prefixSize(score);
      try {
        entries.add(new Entry<>(score, codec.current().decode(Arrays.copyOfRange(member, offset, member.length))));
      } catch (CodecException | EnvelopeException | DictionaryNotFoundException | MissingLibraryException e) {
        skip(member, "score " + score + ": " + e.getMessage());
      }
    }
    return entries;
  }

  private void skip(byte[] member, String reason) {
    decodeFailures.increment();
    long score = FeedLayout.score(member);
    failureLog.report(settings.key() + (score < 0 ? " (a member of " + member.length + " bytes)" : " score " + score),
        reason);
  }

  @Override
  public CompletableFuture<Boolean> remove(long score) {
    return dropPages(session.translated(REMOVE.<Long>run(session, new byte[][] {key}, utf8(Long.toString(score))),
        describeRemove(score)).thenApply(removed -> removed > 0));
  }

  @Override
  public CompletableFuture<Long> size() {
    return session.translated(SIZE.<Long>run(session, new byte[][] {key}), describeSize());
  }

  @Override
  public CompletableFuture<Void> clear() {
    return dropPages(session.translated(CLEAR.<Long>run(session, new byte[][] {key}), describeClear())
        .thenApply(n -> null));
  }

  @Override
  public CompletableFuture<OptionalLong> reserveScores(int count, long floor) {
    if (count < 1 || floor < 0 || floor > FeedLayout.MAX_SCORE) {
      throw new IllegalArgumentException(owner + ": reserve 1 or more scores above a floor of 0 to 2^53, got "
          + count + " above " + floor);
    }
    String what = "reserving " + count + " scores of " + owner;
    return session.translated(RESERVE.<Long>run(session, new byte[][] {counterKey}, counterField,
            utf8(Integer.toString(count)), utf8(Long.toString(floor))), what)
        .thenApply(last -> last < 0 ? OptionalLong.empty() : OptionalLong.of(check(last - count + 1, count)));
  }

  @Override
  public CompletableFuture<Long> raiseCounter(long atLeast) {
    if (atLeast < 0 || atLeast > FeedLayout.MAX_SCORE) {
      throw new IllegalArgumentException(owner + ": a counter is 0 to 2^53, got " + atLeast);
    }
    return session.translated(RAISE.<Long>run(session, new byte[][] {counterKey}, counterField,
        utf8(Long.toString(atLeast))), "raising the counter of " + owner);
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
  long decodeFailures() {
    return decodeFailures.sum();
  }

  WriteCodec<V> codec() {
    return codec;
  }

  @Override
  public String toString() {
    return "AsyncFeed[" + settings.name() + ", key " + settings.key() + "]";
  }
}
