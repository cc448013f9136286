package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncFeed;
import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.Envelope;
import dev.stowage.EnvelopeCodec;
import dev.stowage.EnvelopeException;
import dev.stowage.Feed;
import dev.stowage.Feed.Entry;
import dev.stowage.FeedLayout;
import dev.stowage.MissingLibraryException;
import dev.stowage.StowageException;
import dev.stowage.StowageKeys;
import dev.stowage.compress.Compression;
import dev.stowage.compress.CompressionIds;
import dev.stowage.internal.compress.PayloadDecompressor;
import dev.stowage.internal.envelope.EnvelopeWriter;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one implementation of a feed, on the session's shared connection, in buckets of {@value
 * #BUCKET} consecutive scores: every operation is asynchronous here, and {@link BlockingFeed} waits
 * for it.
 *
 * <p><b>Layout</b> (also in {@code docs/ARCHITECTURE.md}). Entry {@code s} lives in the list {@code
 * <key>:b:<s / 64>}, whose elements are the bucket's entries in ascending score order, each the
 * score as a varint followed by the value's envelope; the sorted set {@code <key>} indexes the
 * buckets that hold entries (member and score the bucket number). A Redis list of a few dozen small
 * elements is a packed listpack costing a few bytes per element, where a sorted set costs about a
 * hundred per member; a page is still one round trip, a script that walks the index from the newest
 * bucket and cuts the page out of one or two lists with {@code LRANGE}. Writes keep every bucket
 * sorted whatever runs concurrently: {@code add} is one script (the counter's {@code HINCRBY} and
 * the {@code RPUSH}), and {@code addAll} and {@code putAll} store each entry at its place.
 */
public final class RedisFeed<V> implements AsyncFeed<V> {
  /**
   * A script of this feed, with {@link StowageKeys#FEED_BUCKET_INFIX} where it says {@code
   * {bucket}}.
   */
  private static LuaScript script(String text, ScriptOutputType type) {
    return new LuaScript(
        text.replace("{bucket}", StowageKeys.FEED_BUCKET_INFIX)
            .replace("{sealed}", StowageKeys.FEED_SEALED_INFIX)
            .replace("{hold}", StowageKeys.FEED_HOLD_INFIX),
        type);
  }

  /** Scores per bucket: {@link FeedLayout#BUCKET_SIZE}. */
  static final int BUCKET = FeedLayout.BUCKET_SIZE;

  /**
   * How long a write that finds a bucket sealed holds it ({@link StowageKeys#feedSealHold}): no
   * writer seals it meanwhile, so the write can read it and send itself again with its members
   * (which opens it) without another writer sealing it again in between. Writers that keep writing
   * into a bucket keep it open; sealing is an optimisation, and waits.
   */
  static final int HOLD_MILLIS = 1000;

  /**
   * Lua: {@code digits(n)}, an integral number in decimal, as {@link StowageKeys} and {@link
   * Long#toString} write it. Every bucket number a script turns into a key, an index member or a
   * table key goes through it: Lua's own {@code tostring} and {@code ..} write numbers with {@code
   * %.14g}, so from bucket 10^14 (score 6.4e15, below 2^53) they wrote {@code 1e+14} and gave
   * neighbouring buckets one name.
   */
  private static final String DIGITS =
      """
      local function digits(n) return string.format('%.0f', n) end
      """;

  /** Lua: the score a member starts with (its varint prefix). */
  private static final String SCORE_OF =
      """
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

  /**
   * Lua, over the index {@code KEYS[1]}: {@code hold(b)} keeps bucket {@code b} from being sealed
   * for {@link #HOLD_MILLIS} ({@link StowageKeys#feedSealHold}); {@code open(b, from, count)} puts
   * the members {@code ARGV[from]} to {@code ARGV[from + count - 1]} back into the list of sealed
   * bucket {@code b}, deleting its string and its sealed index member; {@code drop_lost(b)}, for a
   * bucket whose sealed string is missing (deleted or evicted), removes its sealed index member and
   * returns the count that member claimed (0 when there is none). Needs {@link #DIGITS} before it.
   */
  private static final String SEALED_BUCKETS =
      """
      local function hold(b)
        redis.call('SET', KEYS[1] .. '{hold}' .. digits(b), '1', 'PX', %d)
      end
      local function open(b, from, count)
        local bk = KEYS[1] .. '{bucket}' .. digits(b)
        redis.call('DEL', bk, KEYS[1] .. '{sealed}' .. digits(b))
        for j = from, from + count - 1 do redis.call('RPUSH', bk, ARGV[j]) end
        for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], b, b)) do redis.call('ZREM', KEYS[1], m) end
        if count > 0 then redis.call('ZADD', KEYS[1], b, digits(b)) end
      end
      local function drop_lost(b)
        local lost = 0
        for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], b, b)) do
          local c = string.match(m, '^%%d+:(%%d+)$')
          if c then
            redis.call('ZREM', KEYS[1], m)
            lost = lost + tonumber(c)
          end
        end
        return lost
      end
      """
          .formatted(HOLD_MILLIS);

  /**
   * Appends members with new scores from the counter: KEYS index, counter; ARGV field, whether to
   * return full buckets ({@code 1} or {@code 0}), envelopes. Returns the first score, then, for
   * each bucket the append filled, its number and its members. Refuses, before changing anything,
   * scores above 2^53, which Lua (whose numbers are doubles) would round to a score already taken,
   * and scores in a sealed bucket, which only a counter lowered by hand can give.
   */
  private static final LuaScript APPEND =
      script(
          DIGITS
              + SCORE_OF
              + """
      local n = #ARGV - 2
      local c = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
      if c then
        if c > %2$d - n then
          return redis.error_reply('ERR the counter ' .. ARGV[1] .. ' of feed ' .. KEYS[1] .. ' is at ' .. digits(c)
              .. ': adding ' .. n .. ' would give scores above 2^53')
        end
        for b = math.floor((c + 1) / %1$d), math.floor((c + n) / %1$d) do
          if redis.call('EXISTS', KEYS[1] .. '{sealed}' .. digits(b)) == 1 then
            return redis.error_reply('ERR bucket ' .. digits(b) .. ' of feed ' .. KEYS[1] .. ' is sealed, but the counter '
                .. digits(c) .. ' is below its scores: was the counter lowered?')
          end
        end
      end
      local last = redis.call('HINCRBY', KEYS[2], ARGV[1], n)
      local first = last - n + 1
      local out = {first}
      for i = 1, n do
        local s = first + i - 1
        local b = math.floor(s / %1$d)
        local bk = KEYS[1] .. '{bucket}' .. digits(b)
        local len = redis.call('RPUSH', bk, prefix(s) .. ARGV[i + 2])
        if len == 1 then
          redis.call('ZADD', KEYS[1], b, digits(b))
        elseif ARGV[2] == '1' and len == (b == 0 and %1$d - 1 or %1$d) then
          out[#out + 1] = b
          out[#out + 1] = redis.call('LRANGE', bk, 0, -1)
        end
      end
      return out"""
                  .formatted(BUCKET, FeedLayout.MAX_SCORE),
          ScriptOutputType.MULTI);

  /**
   * Stores members at given scores, replacing one already there, then raises the counter to the
   * largest: KEYS index, counter; ARGV field, whether to return full buckets ({@code 1} or {@code
   * 0}), the number of sealed buckets to open, and for each its number, the SHA-1 of its sealed
   * value as read, its member count and its members; then score and member pairs. A sealed bucket a
   * pair falls in is opened first, with the members given, if its value is still the one read.
   * Returns {@code 1}, then, for each bucket this write filled (it holds all its scores now and did
   * not before), its number and its members (an array), and for each bucket whose sealed string was
   * missing, its number and the count of entries lost with it (an integer), its index repaired; or,
   * changing nothing but holding them ({@code hold}), {@code 0} and the sealed buckets to open
   * (again). Every sealed bucket the write finds is held, so that it is not sealed again before the
   * write has read it and sent it again.
   */
  private static final LuaScript PUT =
      script(
          DIGITS
              + SCORE_OF
              + SEALED_BUCKETS
              + """
      local opening = {}
      local i = 4
      for k = 1, tonumber(ARGV[3]) do
        opening[ARGV[i]] = {ARGV[i + 1], i + 3, tonumber(ARGV[i + 2])}
        i = i + 3 + tonumber(ARGV[i + 2])
      end
      local first = i
      local touched, seen, sealed, opened, unsealed = {}, {}, {}, {}, {}
      for i = first, #ARGV, 2 do
        local b = math.floor(tonumber(ARGV[i]) / %1$d)
        if not seen[b] then
          seen[b] = true
          touched[#touched + 1] = b
          local v = redis.call('GET', KEYS[1] .. '{sealed}' .. digits(b))
          if v then
            hold(b)
            local o = opening[digits(b)]
            if o and redis.sha1hex(v) == o[1] then opened[#opened + 1] = {b, o} else sealed[#sealed + 1] = b end
          else
            unsealed[#unsealed + 1] = b
          end
        end
      end
      if #sealed > 0 then
        local out = {0}
        for _, b in ipairs(sealed) do out[#out + 1] = b end
        return out
      end
      local lost = {}
      for _, b in ipairs(unsealed) do
        local n = drop_lost(b)
        if n > 0 then
          lost[#lost + 1] = b
          lost[#lost + 1] = n
        end
      end
      for _, bo in ipairs(opened) do open(bo[1], bo[2][2], bo[2][3]) end
      local before = {}
      if ARGV[2] == '1' then
        for _, b in ipairs(touched) do before[b] = redis.call('LLEN', KEYS[1] .. '{bucket}' .. digits(b)) end
      end
      local top = 0
      for i = first, #ARGV, 2 do
        local s = tonumber(ARGV[i])
        local m = ARGV[i + 1]
        local b = math.floor(s / %1$d)
        local bk = KEYS[1] .. '{bucket}' .. digits(b)
        local tail = redis.call('LINDEX', bk, -1)
        if not tail then
          redis.call('RPUSH', bk, m)
          redis.call('ZADD', KEYS[1], b, digits(b))
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
      if c < top then redis.call('HSET', KEYS[2], ARGV[1], digits(top)) end
      local out = {1}
      if ARGV[2] == '1' then
        for _, b in ipairs(touched) do
          local bk = KEYS[1] .. '{bucket}' .. digits(b)
          local full = (b == 0 and %1$d - 1 or %1$d)
          if before[b] < full and redis.call('LLEN', bk) == full then
            out[#out + 1] = b
            out[#out + 1] = redis.call('LRANGE', bk, 0, -1)
          end
        end
      end
      for _, x in ipairs(lost) do out[#out + 1] = x end
      return out"""
                  .formatted(BUCKET),
          ScriptOutputType.MULTI);

  /**
   * Reserves scores above a floor: KEYS counter hash; ARGV field, count, floor. -1 when the counter
   * is missing (an integer, not nil, which RESP3 would read as a boolean), else the last score.
   * Refuses, changing nothing, scores above 2^53, which Lua (whose numbers are doubles) would
   * return rounded to a score already taken.
   */
  private static final LuaScript RESERVE =
      script(
          """
      local c = redis.call('HGET', KEYS[1], ARGV[1])
      if not c then return -1 end
      if math.max(tonumber(c) or 0, tonumber(ARGV[3])) > %d - tonumber(ARGV[2]) then
        return redis.error_reply('ERR the counter ' .. ARGV[1] .. ' in ' .. KEYS[1] .. ' is at ' .. c .. ' (floor '
            .. ARGV[3] .. '): reserving ' .. ARGV[2] .. ' scores would give scores above 2^53')
      end
      if tonumber(c) < tonumber(ARGV[3]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
      return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])"""
              .formatted(FeedLayout.MAX_SCORE),
          ScriptOutputType.INTEGER);

  /**
   * Raises the counter, never lowering it: KEYS counter hash; ARGV field, score. Returns the
   * counter.
   */
  private static final LuaScript RAISE =
      script(
          """
      local c = redis.call('HGET', KEYS[1], ARGV[1])
      if not c or tonumber(c) < tonumber(ARGV[2]) then
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
        return tonumber(ARGV[2])
      end
      return tonumber(c)""",
          ScriptOutputType.INTEGER);

  /**
   * Members from the newest: KEYS index; ARGV entries to skip, entries wanted. An open bucket's
   * members come as they are, newest first; a sealed bucket comes as one element, an array of its
   * stored value (nil if it is missing), the first and last index, from 0 in ascending order, of
   * the entries of the page it holds, and its number. A sealed bucket is skipped by the count its
   * index member gives, without reading it. A sealed bucket the page needs whose string is missing
   * (deleted or evicted) leaves the index, as if it had no entries, and comes as an array of the
   * count its index member claimed and its number, once: pages and {@link #SIZE} agree from then
   * on.
   */
  private static final LuaScript PAGE =
      script(
          """
      local skip = tonumber(ARGV[1])
      local want = tonumber(ARGV[2])
      local out = {}
      local from = 0
      while want > 0 do
        local buckets = redis.call('ZREVRANGE', KEYS[1], from, from + 63)
        if #buckets == 0 then break end
        local dropped = 0
        for _, b in ipairs(buckets) do
          local n, count = string.match(b, '^(%d+):(%d+)$')
          local len, v
          if n then len = tonumber(count) else len = redis.call('LLEN', KEYS[1] .. '{bucket}' .. b) end
          if n and skip < len then
            v = redis.call('GET', KEYS[1] .. '{sealed}' .. n)
            if not v then
              redis.call('ZREM', KEYS[1], b)
              dropped = dropped + 1
              out[#out + 1] = {len, tonumber(n)}
              len = 0
            end
          end
          if skip >= len then
            skip = skip - len
          else
            local hi = len - 1 - skip
            local lo = math.max(0, hi - want + 1)
            if n then
              out[#out + 1] = {v, lo, hi, tonumber(n)}
            else
              local items = redis.call('LRANGE', KEYS[1] .. '{bucket}' .. b, lo, hi)
              for i = #items, 1, -1 do out[#out + 1] = items[i] end
            end
            want = want - (hi - lo + 1)
            skip = 0
            if want <= 0 then break end
          end
        end
        from = from + 64 - dropped
      end
      return out""",
          ScriptOutputType.MULTI);

  /**
   * Removes the entry at a score: KEYS index; ARGV score, then, to open its bucket when it is
   * sealed, the SHA-1 of the sealed value as read and its members. Returns whether there was an
   * entry ({@code 1} or {@code 0}) and the count of entries lost with the bucket's sealed string,
   * found missing and dropped from the index (usually 0); or, holding the bucket ({@code hold}) and
   * changing nothing else, {@code -1} when the bucket is sealed and was not opened (no members
   * given, or its value changed since they were read).
   */
  private static final LuaScript REMOVE =
      script(
          DIGITS
              + SCORE_OF
              + SEALED_BUCKETS
              + """
      local s = tonumber(ARGV[1])
      local b = math.floor(s / %1$d)
      local v = redis.call('GET', KEYS[1] .. '{sealed}' .. digits(b))
      local lost = 0
      if v then
        hold(b)
        if not ARGV[2] or redis.sha1hex(v) ~= ARGV[2] then return {-1, 0} end
        open(b, 3, #ARGV - 2)
      else
        lost = drop_lost(b)
      end
      local bk = KEYS[1] .. '{bucket}' .. digits(b)
      local items = redis.call('LRANGE', bk, 0, -1)
      for j = 1, #items do
        if score_of(items[j]) == s then
          redis.call('LREM', bk, 1, items[j])
          if redis.call('LLEN', bk) == 0 then redis.call('ZREM', KEYS[1], digits(b)) end
          return {1, lost}
        end
      end
      return {0, lost}"""
                  .formatted(BUCKET),
          ScriptOutputType.MULTI);

  /**
   * The number of entries: KEYS index. Returns it, then, for each sealed bucket whose string is
   * missing (deleted or evicted), which leaves the index, its number and the count its index member
   * claimed.
   */
  private static final LuaScript SIZE =
      script(
          """
      local n = 0
      local out = {0}
      for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
        local id, count = string.match(b, '^(%d+):(%d+)$')
        if not count then
          n = n + redis.call('LLEN', KEYS[1] .. '{bucket}' .. b)
        elseif redis.call('EXISTS', KEYS[1] .. '{sealed}' .. id) == 1 then
          n = n + tonumber(count)
        else
          redis.call('ZREM', KEYS[1], b)
          out[#out + 1] = tonumber(id)
          out[#out + 1] = tonumber(count)
        end
      end
      out[1] = n
      return out""",
          ScriptOutputType.MULTI);

  /** Removes every bucket, open or sealed, and the index: KEYS index. */
  private static final LuaScript CLEAR =
      script(
          """
      for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
        local n = string.match(b, '^(%d+):%d+$')
        if n then
          redis.call('UNLINK', KEYS[1] .. '{sealed}' .. n, KEYS[1] .. '{hold}' .. n)
        else
          redis.call('UNLINK', KEYS[1] .. '{bucket}' .. b, KEYS[1] .. '{hold}' .. b)
        end
      end
      return redis.call('UNLINK', KEYS[1])""",
          ScriptOutputType.INTEGER);

  /**
   * Seals a full bucket: KEYS index; ARGV bucket, its member count, the SHA-1 of its members as
   * read ({@link #digest}), the sealed value. Only while the list still holds exactly those
   * members, the bucket is not sealed and no write holds it: 1 when sealed, 0 when not, and minus
   * the milliseconds the hold has left when a write holds it.
   */
  private static final LuaScript SEAL =
      script(
          """
      local b = ARGV[1]
      local bk = KEYS[1] .. '{bucket}' .. b
      local sk = KEYS[1] .. '{sealed}' .. b
      local held = redis.call('PTTL', KEYS[1] .. '{hold}' .. b)
      if held > 0 then return -held end
      local items = redis.call('LRANGE', bk, 0, -1)
      if #items ~= tonumber(ARGV[2]) or redis.call('EXISTS', sk) == 1 then return 0 end
      local parts = {}
      for i = 1, #items do parts[i] = #items[i] .. ':' .. items[i] end
      if redis.sha1hex(table.concat(parts)) ~= ARGV[3] then return 0 end
      redis.call('SET', sk, ARGV[4])
      redis.call('DEL', bk)
      redis.call('ZREM', KEYS[1], b)
      redis.call('ZADD', KEYS[1], b, b .. ':' .. #items)
      return 1""",
          ScriptOutputType.INTEGER);

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
    return dropPages(started(() -> addAsync(value)));
  }

  private CompletableFuture<Long> addAsync(V value) {
    byte[] envelope = encode(value);
    String what = "adding to " + owner;
    return session
        .translated(
            APPEND.<List<Object>>run(
                session, new byte[][] {key, counterKey}, counterField, sealFlag(), envelope),
            what)
        .thenApply(
            reply -> {
              long first = check((Long) reply.get(0), 1);
              List<FullBucket> full = fullBuckets(reply);
              if (!full.isEmpty()) {
                inBackground(seal(full));
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
    String reserve =
        "HINCRBY " + settings.counterKey() + " " + settings.counterField() + " of " + owner;
    return session
        .call(reserve, c -> c.hincrby(counterKey, counterField, n))
        .thenCompose(
            last -> {
              long first = check(last - n + 1, n);
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
                        return put(pairs, List.of(), 1);
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
    return dropPages(started(() -> putAllAsync(valuesByScore)));
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
              return put(chunk, List.of(), 1);
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

  /** The page script's reply: open buckets' members, and sealed buckets' parts ({@link #PAGE}). */
  private CompletableFuture<List<Object>> members(int page, int size) {
    long[] range = range(page, size);
    return session.translated(
        PAGE.<List<Object>>run(
            session,
            new byte[][] {key},
            utf8(Long.toString(range[0])),
            utf8(Integer.toString(size))),
        describePage(page, size));
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

  /**
   * A page of at least this many stored bytes is decoded on the session's decode threads rather
   * than on the I/O thread of the connection that every cache and feed of the {@code Stowage}
   * shares: decoding it costs more than the hand-over, and would hold up every other reply
   * meanwhile.
   */
  static final int DECODE_ELSEWHERE_BYTES = 4096;

  private CompletableFuture<List<Entry<V>>> pageAsync(
      int page, int size, @Nullable Executor decodeOn) {
    String pageKey = pageKey(page, size);
    List<Entry<V>> kept = keptPage(pageKey);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    long stamp = stamp(pageKey);
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
                  settings.preload().load(members, RedisFeed::envelopeStart);
              if (!sealed.isEmpty()) {
                loaded =
                    CompletableFuture.allOf(loaded, settings.preload().load(sealed, value -> 0));
              }
              Function<Void, List<Entry<V>>> decodeAndKeep =
                  done -> keep(pageKey, stamp, decode(parts));
              if (decodeOn != null) {
                return loaded.thenApplyAsync(decodeAndKeep, decodeOn);
              }
              // A sealed bucket's entries may name schemas that only its decompressed payload
              // shows, which
              // could only be looked up by blocking: never on the I/O thread.
              return sealed.isEmpty() && storedBytes(members) < DECODE_ELSEWHERE_BYTES
                  ? loaded.thenApply(decodeAndKeep)
                  : loaded.thenApplyAsync(decodeAndKeep, session.decodeExecutor());
            });
  }

  /** Where a member's envelope starts, after its score; -1 when the score is malformed. */
  private static int envelopeStart(byte[] member) {
    long score = FeedLayout.score(member);
    return score < 0 ? -1 : FeedLayout.prefixSize(score);
  }

  private static long storedBytes(List<byte[]> members) {
    long bytes = 0;
    for (byte[] member : members) {
      bytes += member.length;
    }
    return bytes;
  }

  // ---------------------------------------------------------------- sealed buckets

  /**
   * A bucket is sealed only while its members, uncompressed, take at most this many bytes: a page
   * decompresses a sealed bucket whole to read a few of its entries, and values this large gain
   * little from sharing a frame.
   */
  static final int SEAL_MAX_BYTES = 256 * 1024;

  /** Times a write finds its buckets sealed and opens them before it gives up. */
  static final int MAX_ATTEMPTS = 10;

  private static final byte[] SEAL_ON = {'1'};
  private static final byte[] SEAL_OFF = {'0'};

  /** A bucket a write filled, with its members as they were then. */
  private record FullBucket(long bucket, List<byte[]> members) {}

  private byte[] sealFlag() {
    return settings.seal() ? SEAL_ON : SEAL_OFF;
  }

  /**
   * The full buckets a write's reply lists after its first element (bucket, members, ...); the
   * buckets it lists with a count instead of members had lost their sealed strings, which is
   * reported.
   */
  @SuppressWarnings("unchecked")
  private List<FullBucket> fullBuckets(List<Object> reply) {
    if (reply.size() < 3) {
      return List.of();
    }
    List<FullBucket> full = new ArrayList<>((reply.size() - 1) / 2);
    for (int i = 1; i + 1 < reply.size(); i += 2) {
      long bucket = (Long) reply.get(i);
      if (reply.get(i + 1) instanceof Long count) {
        lostBucket(bucket, count);
      } else {
        full.add(new FullBucket(bucket, (List<byte[]>) reply.get(i + 1)));
      }
    }
    return full;
  }

  /**
   * Counts, once, the entries of a sealed bucket whose string was found missing from Redis
   * (deleted, or evicted under {@code maxmemory}); the script that found it dropped it from the
   * index, so that pages and {@link #size()} agree again and no later page fails on it.
   */
  private void lostBucket(long bucket, long count) {
    decodeFailures.add(count);
    failureLog.report(
        settings.key() + " bucket " + bucket,
        "its sealed value is missing from Redis (deleted or"
            + " evicted), so its "
            + count
            + " entries are lost; the bucket was dropped from the feed's index");
  }

  /**
   * A sealed bucket as read, for {@link #PUT} to open: its number, the SHA-1 of its value, its
   * members.
   */
  private record Opening(long bucket, String digest, List<byte[]> members) {}

  /**
   * Runs {@link #PUT} with score and member {@code pairs}, opening the sealed buckets of {@code
   * openings} in the same script; when it finds other sealed buckets (or these sealed again), reads
   * them and runs it again. Completes once the buckets it filled are sealed (or left open, when
   * they cannot be).
   */
  private CompletableFuture<Void> put(List<byte[]> pairs, List<Opening> openings, int attempt) {
    List<byte[]> argv = new ArrayList<>(pairs.size() + 3);
    argv.add(counterField);
    argv.add(sealFlag());
    argv.add(utf8(Integer.toString(openings.size())));
    for (Opening opening : openings) {
      argv.add(utf8(Long.toString(opening.bucket())));
      argv.add(utf8(opening.digest()));
      argv.add(utf8(Integer.toString(opening.members().size())));
      argv.addAll(opening.members());
    }
    argv.addAll(pairs);
    return PUT.<List<Object>>run(
            session, new byte[][] {key, counterKey}, argv.toArray(byte[][]::new))
        .thenCompose(
            reply -> {
              if ((Long) reply.get(0) == 1) {
                for (Opening opening : openings) {
                  sealLater(opening.bucket(), RESEAL_AFTER);
                }
                return seal(fullBuckets(reply));
              }
              List<Long> sealed = new ArrayList<>(reply.size() - 1);
              for (int i = 1; i < reply.size(); i++) {
                sealed.add((Long) reply.get(i));
              }
              checkAttempts(attempt, sealed);
              List<CompletableFuture<@Nullable Opening>> reads =
                  sealed.stream().map(this::readSealed).toList();
              return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                  .thenCompose(
                      done -> {
                        List<Opening> next = new ArrayList<>(reads.size());
                        for (CompletableFuture<@Nullable Opening> read : reads) {
                          Opening opening = read.join();
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
   * buckets it finds sealed for {@link #HOLD_MILLIS}, and no writer seals a held bucket, so this
   * takes attempts that each took longer than the hold (or writers of a version before holds).
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
              + HOLD_MILLIS
              + " ms; nothing was written");
    }
  }

  /**
   * Seals full buckets; never fails: a bucket that cannot be sealed stays an open list, which every
   * reader reads, and the reason is logged once.
   */
  private CompletableFuture<Void> seal(List<FullBucket> full) {
    if (full.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<?>[] seals = new CompletableFuture<?>[full.size()];
    for (int i = 0; i < full.size(); i++) {
      FullBucket bucket = full.get(i);
      seals[i] =
          leftOpenOnFailure(
              bucket.bucket(),
              "not sealed",
              settings
                  .preload()
                  .load(bucket.members(), RedisFeed::envelopeStart)
                  .thenApplyAsync(done -> sealedValue(bucket.members()), session.decodeExecutor())
                  .thenCompose(
                      value ->
                          value == null
                              ? CompletableFuture.completedFuture(0L)
                              : SEAL.<Long>run(
                                  session,
                                  new byte[][] {key},
                                  utf8(Long.toString(bucket.bucket())),
                                  utf8(Integer.toString(bucket.members().size())),
                                  utf8(digest(bucket.members())),
                                  value))
                  .thenApply(
                      outcome -> {
                        if (outcome < 0) {
                          // A write holds the bucket: seal it once the hold is over, if it is still
                          // full.
                          sealLater(bucket.bucket(), Duration.ofMillis(-outcome));
                        }
                        return outcome;
                      }));
    }
    return CompletableFuture.allOf(seals);
  }

  /**
   * The sealed value of a bucket's members: each member's envelope uncompressed, the lot as one
   * envelope of the feed's current encoding. Null when sealing would not make the bucket smaller
   * (the encoding does not compress it) or the bucket is too large to seal.
   */
  byte @Nullable [] sealedValue(List<byte[]> members) {
    EnvelopeCodec<V> sealing = sealingCodec();
    if (sealing == null) {
      return null;
    }
    List<byte[]> plain = new ArrayList<>(members.size());
    long stored = 0;
    for (byte[] member : members) {
      stored += member.length;
      long score = FeedLayout.score(member);
      if (score < 0) {
        return null;
      }
      int offset = FeedLayout.prefixSize(score);
      byte[] envelope = Arrays.copyOfRange(member, offset, member.length);
      if (!Envelope.isEnvelope(envelope)) {
        plain.add(member);
        continue;
      }
      Envelope.Header header = Envelope.readHeader(envelope);
      if (header.compressionId() != CompressionIds.NONE) {
        envelope =
            EnvelopeWriter.write(
                header.codecId(),
                CompressionIds.NONE,
                -1,
                header.hasSchemaVersion() ? header.schemaVersion() : -1,
                codec.current().decodePayload(envelope));
      }
      plain.add(FeedLayout.member(score, envelope));
    }
    byte[] payload = FeedLayout.sealedPayload(plain);
    if (payload.length > SEAL_MAX_BYTES || payload.length > codec.current().maxDecodedSize()) {
      return null;
    }
    byte[] value = sealing.wrap(payload);
    return Envelope.readHeader(value).compressionId() == CompressionIds.NONE
            || value.length >= stored
        ? null
        : value;
  }

  /**
   * How long a bucket a write opened stays open before it is sealed again. Writes into old buckets
   * come in bursts (a refill, a batch of edits): sealing at once would make every other write of
   * the burst open it again, and concurrent writers could keep opening it for each other.
   */
  static final Duration RESEAL_AFTER = Duration.ofMillis(HOLD_MILLIS);

  /**
   * Buckets that a {@link #sealLater} waits to seal: a burst of writes into one bucket schedules
   * one.
   */
  private final Set<Long> sealingLater = ConcurrentHashMap.newKeySet();

  /**
   * Seals a bucket in the background, {@code delay} later, if it is then full and open; nothing
   * when a seal of that bucket is already waiting.
   */
  private void sealLater(long bucket, Duration delay) {
    if (!sealingLater.add(bucket)) {
      return;
    }
    byte[] bucketKey = utf8(FeedLayout.bucketKey(settings.key(), bucket));
    Executor later =
        CompletableFuture.delayedExecutor(
            delay.toMillis() + 5, TimeUnit.MILLISECONDS, session.decodeExecutor());
    inBackground(
        leftOpenOnFailure(
            bucket,
            "not sealed again",
            CompletableFuture.runAsync(() -> sealingLater.remove(bucket), later)
                .thenCompose(
                    ready ->
                        session.<List<byte[]>>call(
                            "reading bucket " + bucket + " of " + owner + " to seal it",
                            c -> c.lrange(bucketKey, 0, -1)))
                .thenCompose(
                    members ->
                        members.size() == (bucket == 0 ? BUCKET - 1 : BUCKET)
                            ? seal(List.of(new FullBucket(bucket, members)))
                            : CompletableFuture.<Void>completedFuture(null))));
  }

  /**
   * Sealing's work, which never fails: a failure leaves the bucket an open list, which every reader
   * reads, and is logged once.
   */
  private CompletableFuture<Void> leftOpenOnFailure(
      long bucket, String outcome, CompletableFuture<?> work) {
    return work.handle(
        (done, failure) -> {
          if (failure != null) {
            failureLog.report(
                settings.key() + " bucket " + bucket,
                "left open, "
                    + outcome
                    + ": "
                    + session
                        .translate(failure, "sealing bucket " + bucket + " of " + owner)
                        .getMessage());
          }
          return null;
        });
  }

  /**
   * The zstd level sealed buckets are written at. A bucket is compressed once and read many times,
   * so it takes a higher level than single values do: in {@code stowage bench memory} a board
   * record's entry took 180 bytes sealed at level 2, 169 at level 6 and 166 at level 9
   * (docs/ARCHITECTURE.md, "Sealed buckets"); level 6 stands between level 2's speed and level 9's
   * bytes.
   */
  static final int SEAL_ZSTD_LEVEL = 6;

  /** The encoding that seals buckets, made for one current encoding of the feed. */
  private record Sealer<V>(EnvelopeCodec<V> from, @Nullable EnvelopeCodec<V> codec) {}

  private volatile @Nullable Sealer<V> sealer;

  /**
   * The feed's current encoding at {@link #SEAL_ZSTD_LEVEL}, with its dictionary if it has one;
   * null when it does not compress with zstd (none, or lz4, chosen for speed), and so does not
   * seal.
   */
  private @Nullable EnvelopeCodec<V> sealingCodec() {
    EnvelopeCodec<V> current = codec.current();
    Sealer<V> made = sealer;
    if (made == null || made.from() != current) {
      Compression compression = current.compression();
      Compression sealing =
          CompressionIds.hasDictionary(compression.id())
              ? Compression.zstd(compression.dictionary().orElseThrow(), SEAL_ZSTD_LEVEL)
                  .magicless(compression.isMagicless())
              : compression.id() == CompressionIds.ZSTD ? Compression.zstd(SEAL_ZSTD_LEVEL) : null;
      made =
          new Sealer<>(
              current,
              sealing == null
                  ? null
                  : EnvelopeCodec.builder(current.writeCodec())
                      .compression(sealing)
                      .maxDecodedSize(current.maxDecodedSize())
                      .build());
      sealer = made;
    }
    return made.codec();
  }

  /** The SHA-1, in lower-case hex, that {@link #SEAL} computes over a bucket's members. */
  static String digest(List<byte[]> members) {
    MessageDigest sha1 = sha1();
    for (byte[] member : members) {
      sha1.update((member.length + ":").getBytes(StandardCharsets.US_ASCII));
      sha1.update(member);
    }
    return HexFormat.of().formatHex(sha1.digest());
  }

  /**
   * Reads a sealed bucket's members, to open it; null when it is not sealed any more. Fails when
   * the sealed value cannot be read, since a write into the bucket would otherwise lose its
   * entries.
   */
  private CompletableFuture<@Nullable Opening> readSealed(long bucket) {
    byte[] sealedKey = utf8(FeedLayout.sealedKey(settings.key(), bucket));
    String what = "opening sealed bucket " + bucket + " of " + owner;
    return session
        .<byte @Nullable []>call(what, c -> c.get(sealedKey))
        .thenCompose(
            value -> {
              if (value == null) {
                return CompletableFuture.completedFuture(null);
              }
              return settings
                  .preload()
                  .load(List.of(value), v -> 0)
                  .thenApplyAsync(
                      done -> {
                        try {
                          return new Opening(
                              bucket,
                              sha1Hex(value),
                              FeedLayout.sealedMembers(sealedPayload(value)));
                        } catch (IllegalArgumentException e) {
                          throw new EnvelopeException(String.valueOf(e.getMessage()))
                              .addContext(what);
                        } catch (StowageException e) {
                          throw e.addContext(what);
                        }
                      },
                      session.decodeExecutor());
            });
  }

  /**
   * The SHA-1, in lower-case hex, that {@link #PUT} and {@link #UNSEAL} compute over a sealed
   * value.
   */
  private static String sha1Hex(byte[] value) {
    return HexFormat.of().formatHex(sha1().digest(value));
  }

  private static MessageDigest sha1() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-1", e);
    }
  }

  /** Seals an {@code add} started and did not wait for. */
  private final Set<CompletableFuture<Void>> background = ConcurrentHashMap.newKeySet();

  private void inBackground(CompletableFuture<Void> work) {
    background.add(work);
    work.whenComplete((done, failure) -> background.remove(work));
  }

  /**
   * Completes once no seal runs in the background any more: those that {@code add}s and writes into
   * sealed buckets started, and those they put off while a write held their bucket; for tests and
   * benchmarks.
   */
  public CompletableFuture<Void> sealsSettled() {
    CompletableFuture<?>[] pending =
        background.stream().filter(work -> !work.isDone()).toArray(CompletableFuture[]::new);
    return pending.length == 0
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.allOf(pending)
            .handle((done, failure) -> null)
            .thenCompose(done -> sealsSettled());
  }

  // ---------------------------------------------------------------- near cache

  /**
   * The near cache's key of a page: under the feed's key, so that the broadcast prefix covers it.
   */
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
  private List<Entry<V>> keep(@Nullable String pageKey, long stamp, Decoded<V> decoded) {
    List<Entry<V>> page = List.copyOf(decoded.entries());
    if (near != null && page.size() == decoded.expected()) {
      near.store()
          .keep(pageKey, stamp, page, (int) Math.min(Integer.MAX_VALUE, decoded.storedBytes()));
    }
    return page;
  }

  /** A page decoded: its entries, how many the reply held, and their stored size. */
  private record Decoded<V>(List<Entry<V>> entries, int expected, long storedBytes) {}

  /** After a write through this feed: no kept page may be older than it. */
  private <T> CompletableFuture<T> dropPages(CompletableFuture<T> write) {
    return near == null
        ? write
        : write.whenComplete((done, failure) -> near.store().invalidateAll());
  }

  /** Near cache hits and misses: {@code [hits, misses]}, zeros without a near cache. */
  public long[] nearCounts() {
    return near == null ? new long[2] : new long[] {near.store().hits(), near.store().misses()};
  }

  /** Decodes the page script's reply, newest first: open members, and sealed buckets' parts. */
  private Decoded<V> decode(List<Object> parts) {
    List<Entry<V>> entries = new ArrayList<>(parts.size());
    int expected = 0;
    long stored = 0;
    for (Object part : parts) {
      if (part instanceof byte[] member) {
        expected++;
        stored += member.length;
        decodeMember(member, entries);
        continue;
      }
      List<?> sealed = (List<?>) part;
      if (sealed.size() == 2) {
        lostBucket((Long) sealed.get(1), (Long) sealed.get(0));
        continue;
      }
      int lo = ((Long) sealed.get(1)).intValue();
      int hi = ((Long) sealed.get(2)).intValue();
      expected += hi - lo + 1;
      if (!(sealed.get(0) instanceof byte[] value)) {
        skipSealed(hi - lo + 1, "its sealed bucket is missing from Redis");
        continue;
      }
      stored += value.length;
      List<byte[]> members;
      try {
        members = sealedMembers(((Long) sealed.get(3)).longValue(), value);
      } catch (IllegalArgumentException
          | EnvelopeException
          | DictionaryNotFoundException
          | MissingLibraryException e) {
        skipSealed(hi - lo + 1, "a sealed bucket of " + value.length + " bytes: " + e.getMessage());
        continue;
      }
      if (members.size() <= hi) {
        skipSealed(
            hi - lo + 1,
            "a sealed bucket holds "
                + members.size()
                + " members where its index says "
                + (hi + 1)
                + " or more");
        continue;
      }
      for (int i = hi; i >= lo; i--) {
        decodeMember(members.get(i), entries);
      }
    }
    return new Decoded<>(entries, expected, stored);
  }

  /**
   * Sealed buckets read lately, decompressed and split, by bucket number, least recently used
   * first: pages near the newest come back to the same one or two. Each is reused only for a stored
   * value equal, byte for byte, to the one it was made from. At most {@link #READ_BUCKETS} of them,
   * and {@link #READ_BUCKET_BYTES}.
   */
  private final LinkedHashMap<Long, ReadBucket> readBuckets = new LinkedHashMap<>(16, 0.75f, true);

  /** The bytes of {@link #readBuckets}; guarded by it. */
  private long readBucketBytes;

  /** Sealed buckets kept decompressed per feed: a few hundred KB for the board's records. */
  static final int READ_BUCKETS = 8;

  /**
   * The most bytes of sealed buckets kept decompressed per feed (their stored values and members):
   * four of the largest a writer seals ({@link #SEAL_MAX_BYTES}); the board's 8 buckets take about
   * 300 KB.
   */
  static final int READ_BUCKET_BYTES = 4 * SEAL_MAX_BYTES;

  /** A sealed bucket's stored value and its members, and the bytes they take. */
  private record ReadBucket(byte[] value, List<byte[]> members, long bytes) {}

  /** The bytes of the sealed buckets kept decompressed (stored values and members); for tests. */
  public long keptBucketBytes() {
    synchronized (readBuckets) {
      return readBucketBytes;
    }
  }

  /** The members of a sealed bucket's stored value, decompressed now or kept from a page before. */
  private List<byte[]> sealedMembers(long bucket, byte[] value) {
    synchronized (readBuckets) {
      ReadBucket read = readBuckets.get(bucket);
      if (read != null && Arrays.equals(read.value(), value)) {
        return read.members();
      }
    }
    List<byte[]> members = List.copyOf(FeedLayout.sealedMembers(sealedPayload(value)));
    ReadBucket read = new ReadBucket(value, members, value.length + storedBytes(members));
    synchronized (readBuckets) {
      ReadBucket replaced = readBuckets.put(bucket, read);
      readBucketBytes += read.bytes() - (replaced == null ? 0 : replaced.bytes());
      Iterator<ReadBucket> eldest = readBuckets.values().iterator();
      while ((readBuckets.size() > READ_BUCKETS || readBucketBytes > READ_BUCKET_BYTES)
          && eldest.hasNext()) {
        readBucketBytes -= eldest.next().bytes();
        eldest.remove();
      }
    }
    return members;
  }

  /** Reads the sizes of compressed payloads without decompressing them. */
  private static final PayloadDecompressor SIZES = new PayloadDecompressor(null);

  /**
   * A sealed bucket's payload, decompressed once its size is known to be one that a writer could
   * have sealed: at most {@link #SEAL_MAX_BYTES}, the size it declares read before anything is
   * decompressed. A larger one was not written by a feed, and decompressing it would take memory
   * for nothing.
   *
   * @throws EnvelopeException if the value is no envelope or declares a larger payload
   */
  private byte[] sealedPayload(byte[] value) {
    Envelope.Header header = Envelope.readHeader(value);
    int offset = header.payloadOffset();
    long size =
        header.compressionId() == CompressionIds.NONE
            ? value.length - offset
            : SIZES.declaredSize(
                header.compressionId(), value, offset, value.length - offset, Integer.MAX_VALUE);
    if (size > SEAL_MAX_BYTES) {
      throw new EnvelopeException(
              "a sealed bucket's payload of "
                  + size
                  + " bytes is larger than a writer seals ("
                  + SEAL_MAX_BYTES
                  + " bytes at most); it is not decompressed")
          .addContext(header.describe());
    }
    return codec.current().decodePayload(value);
  }

  private void decodeMember(byte[] member, List<Entry<V>> into) {
    long score = FeedLayout.score(member);
    if (score < 0) {
      skip(member, "its score prefix is malformed");
      return;
    }
    int offset = FeedLayout.prefixSize(score);
    try {
      into.add(
          new Entry<>(
              score, codec.current().decode(Arrays.copyOfRange(member, offset, member.length))));
    } catch (CodecException
        | EnvelopeException
        | DictionaryNotFoundException
        | MissingLibraryException e) {
      skip(member, "score " + score + ": " + e.getMessage());
    }
  }

  private void skipSealed(int entries, String reason) {
    decodeFailures.add(entries);
    failureLog.report(settings.key() + " (" + entries + " entries of a sealed bucket)", reason);
  }

  private void skip(byte[] member, String reason) {
    decodeFailures.increment();
    long score = FeedLayout.score(member);
    failureLog.report(
        settings.key()
            + (score < 0 ? " (a member of " + member.length + " bytes)" : " score " + score),
        reason);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException at once, for a score below 1 or above 2^53
   */
  @Override
  public CompletableFuture<Boolean> remove(long score) {
    checkScore(score);
    return dropPages(remove(score, null, 1));
  }

  /**
   * Runs {@link #REMOVE}, opening the entry's sealed bucket in the same script when {@code opening}
   * is its value as read; when the script finds the bucket sealed (or sealed again), reads it and
   * runs it again.
   */
  private CompletableFuture<Boolean> remove(long score, @Nullable Opening opening, int attempt) {
    byte[][] argv = new byte[opening == null ? 1 : opening.members().size() + 2][];
    argv[0] = utf8(Long.toString(score));
    if (opening != null) {
      argv[1] = utf8(opening.digest());
      for (int i = 0; i < opening.members().size(); i++) {
        argv[i + 2] = opening.members().get(i);
      }
    }
    long bucket = FeedLayout.bucketOf(score);
    return session
        .translated(
            REMOVE.<List<Object>>run(session, new byte[][] {key}, argv), describeRemove(score))
        .thenCompose(
            reply -> {
              long removed = (Long) reply.get(0);
              long lost = (Long) reply.get(1);
              if (lost > 0) {
                lostBucket(bucket, lost);
              }
              if (removed >= 0) {
                return CompletableFuture.completedFuture(removed > 0);
              }
              checkAttempts(attempt, List.of(bucket));
              return readSealed(bucket).thenCompose(read -> remove(score, read, attempt + 1));
            });
  }

  @Override
  public CompletableFuture<Long> size() {
    return session
        .translated(SIZE.<List<Object>>run(session, new byte[][] {key}), describeSize())
        .thenApply(
            reply -> {
              for (int i = 1; i + 1 < reply.size(); i += 2) {
                lostBucket((Long) reply.get(i), (Long) reply.get(i + 1));
              }
              return (Long) reply.get(0);
            });
  }

  @Override
  public CompletableFuture<Void> clear() {
    return dropPages(
        session
            .translated(CLEAR.<Long>run(session, new byte[][] {key}), describeClear())
            .thenApply(n -> null));
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
            RESERVE.<Long>run(
                session,
                new byte[][] {counterKey},
                counterField,
                utf8(Integer.toString(count)),
                utf8(Long.toString(floor))),
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
        RAISE.<Long>run(
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

  @Override
  public long decodeFailures() {
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
