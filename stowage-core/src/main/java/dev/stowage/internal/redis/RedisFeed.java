package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeCodec;
import dev.stowage.EnvelopeException;
import dev.stowage.Feed;
import dev.stowage.MissingLibraryException;
import dev.stowage.StowageException;
import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/** A {@link Feed} on the session's shared connection. Every call waits, bounded by the command timeout. */
public final class RedisFeed<V> implements Feed<V> {
  /** Increments the counter and adds the member prefixed with the new score's varint. */
  private static final String ADD = """
      local s = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
      local n = s
      local prefix = {}
      while n >= 128 do
        prefix[#prefix + 1] = string.char(n % 128 + 128)
        n = math.floor(n / 128)
      end
      prefix[#prefix + 1] = string.char(n)
      redis.call('ZADD', KEYS[1], s, table.concat(prefix) .. ARGV[2])
      return s""";
  /** Replaces the member at each score, then raises the counter to the largest score. */
  private static final String PUT_AT_SCORES = """
      local top = 0
      for i = 2, #ARGV, 2 do
        redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[i], ARGV[i])
        redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1])
        local s = tonumber(ARGV[i])
        if s > top then top = s end
      end
      local c = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
      if c < top then redis.call('HSET', KEYS[2], ARGV[1], string.format('%.0f', top)) end
      return 1""";

  private final RedisSession session;
  private final FeedSettings<V> settings;
  private final EnvelopeCodec<V> codec;
  private final String owner;
  private final byte[] key;
  private final byte[] counterKey;
  private final byte[] counterField;
  private final LongAdder decodeFailures = new LongAdder();
  private final DecodeFailureLog failureLog;
  private final Raw<V> raw = new RawPages();

  public RedisFeed(RedisSession session, FeedSettings<V> settings) {
    this.session = session;
    this.settings = settings;
    this.codec = settings.codec();
    this.owner = "feed '" + settings.name() + "'";
    this.key = utf8(settings.key());
    this.counterKey = utf8(settings.counterKey());
    this.counterField = utf8(settings.counterField());
    this.failureLog = new DecodeFailureLog(owner);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String name() {
    return settings.name();
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
  public long add(V value) {
    byte[] envelope = encode(value);
    String what = "adding to " + owner;
    Long score = session.await(session.call(what, c -> c.<Long>eval(ADD, ScriptOutputType.INTEGER,
        new byte[][] {key, counterKey}, counterField, envelope)), 1, what);
    return score;
  }

  @Override
  public List<Long> addAll(List<? extends V> values) {
    requireNonNull(values, "values");
    int n = values.size();
    if (n == 0) {
      return List.of();
    }
    List<byte[]> envelopes = new ArrayList<>(n);
    for (V value : values) {
      envelopes.add(encode(value));
    }
    String reserve = "HINCRBY " + settings.counterKey() + " " + settings.counterField() + " of " + owner;
    long last = session.await(session.call(reserve, c -> c.hincrby(counterKey, counterField, n)), 1, reserve);
    long first = last - n + 1;
    if (first < 1 || last > ScorePrefix.MAX_SCORE) {
      throw new StowageException(owner + ": the counter " + settings.counterKey() + "/" + settings.counterField()
          + " gave scores " + first + " to " + last + "; scores must be 1 to 2^53");
    }
    int chunk = settings.chunkSize();
    CompletableFuture<Void> all = ChunkWindow.run((n + chunk - 1) / chunk, index -> {
      int from = index * chunk;
      int to = Math.min(n, from + chunk);
      @SuppressWarnings("unchecked")
      ScoredValue<byte[]>[] members = new ScoredValue[to - from];
      for (int i = from; i < to; i++) {
        long score = first + i;
        members[i - from] = ScoredValue.just(score, ScorePrefix.member(score, envelopes.get(i)));
      }
      return session.dispatch(c -> c.zadd(key, members));
    });
    String what = "ZADD of " + n + " members to " + owner;
    session.await(session.translated(all, what), (n + chunk - 1) / chunk, what);
    List<Long> scores = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      scores.add(first + i);
    }
    return scores;
  }

  @Override
  public void putAll(Map<Long, ? extends V> valuesByScore) {
    requireNonNull(valuesByScore, "valuesByScore");
    List<byte[]> args = new ArrayList<>(valuesByScore.size() * 2);
    for (Map.Entry<Long, ? extends V> entry : valuesByScore.entrySet()) {
      long score = requireNonNull(entry.getKey(), "scores contain null");
      if (score < 1 || score > ScorePrefix.MAX_SCORE) {
        throw new IllegalArgumentException(owner + ": scores must be 1 to 2^53, got " + score);
      }
      args.add(utf8(Long.toString(score)));
      args.add(ScorePrefix.member(score, encode(entry.getValue())));
    }
    if (args.isEmpty()) {
      return;
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
      return session.dispatch(c -> c.<Boolean>eval(PUT_AT_SCORES, ScriptOutputType.BOOLEAN,
          new byte[][] {key, counterKey}, argv));
    });
    String what = "storing " + valuesByScore.size() + " members at their scores in " + owner;
    session.await(session.translated(all, what), chunks, what);
  }

  private static long[] range(int page, int size) {
    if (page < 1) {
      throw new IllegalArgumentException("page must be 1 or more, got " + page);
    }
    if (size < 1 || size > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException("size must be 1 to " + MAX_PAGE_SIZE + ", got " + size);
    }
    long start = (long) (page - 1) * size;
    return new long[] {start, start + size - 1};
  }

  private List<byte[]> members(int page, int size) {
    long[] range = range(page, size);
    String what = "ZREVRANGE " + settings.key() + " " + range[0] + " " + range[1] + " of " + owner;
    return session.await(session.call(what, c -> c.zrevrange(key, range[0], range[1])), 1, what);
  }

  @Override
  public List<Entry<V>> page(int page, int size) {
    List<byte[]> members = members(page, size);
    List<Entry<V>> entries = new ArrayList<>(members.size());
    for (byte[] member : members) {
      long score = ScorePrefix.read(member);
      if (score < 0) {
        skip(member, "its score prefix is malformed");
        continue;
      }
      int offset = ScorePrefix.size(score);
      try {
        entries.add(new Entry<>(score, codec.decode(Arrays.copyOfRange(member, offset, member.length))));
      } catch (CodecException | EnvelopeException | DictionaryNotFoundException | MissingLibraryException e) {
        skip(member, "score " + score + ": " + e.getMessage());
      }
    }
    return entries;
  }

  private void skip(byte[] member, String reason) {
    decodeFailures.increment();
    long score = ScorePrefix.read(member);
    failureLog.report(settings.key() + (score < 0 ? " (a member of " + member.length + " bytes)" : " score " + score),
        reason);
  }

  @Override
  public boolean remove(long score) {
    String what = "ZREMRANGEBYSCORE " + settings.key() + " " + score + " of " + owner;
    return session.await(session.call(what, c -> c.zremrangebyscore(key, Range.create(score, score))), 1, what) > 0;
  }

  @Override
  public long size() {
    String what = "ZCARD " + settings.key() + " of " + owner;
    return session.await(session.call(what, c -> c.zcard(key)), 1, what);
  }

  @Override
  public void clear() {
    String what = "DEL " + settings.key() + " of " + owner;
    session.await(session.call(what, c -> c.del(key)), 1, what);
  }

  @Override
  public long decodeFailures() {
    return decodeFailures.sum();
  }

  @Override
  public Raw<V> raw() {
    return raw;
  }

  @Override
  public String toString() {
    return "Feed[" + settings.name() + ", key " + settings.key() + "]";
  }

  private final class RawPages implements Raw<V> {
    @Override
    public List<StoredEntry> page(int page, int size) {
      List<byte[]> members = members(page, size);
      List<StoredEntry> entries = new ArrayList<>(members.size());
      for (byte[] member : members) {
        long score = ScorePrefix.read(member);
        if (score < 0) {
          skip(member, "its score prefix is malformed");
          continue;
        }
        entries.add(new StoredEntry(score, Arrays.copyOfRange(member, ScorePrefix.size(score), member.length)));
      }
      return entries;
    }

    @Override
    public EnvelopeCodec<V> codec() {
      return codec;
    }
  }
}
