package dev.stowage.board;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import dev.stowage.compress.DictionaryStore;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Stowage mode's Redis side: the {@code board} sorted set of JSON fragments scored by the {@code
 * counter}/{@code board} hash field (reserved through {@link BoardScores}), and the marker {@value #COMPLETE} that says the feed holds
 * every post of the database. One shared, multiplexed Lettuce connection; commands issued together
 * travel as one pipeline. Commands fail fast (within {@link #TIMEOUT}) while Redis is unreachable,
 * so callers can fall back to the database. Thread-safe.
 */
public final class BoardFeed implements AutoCloseable {
  /** The sorted set, as in the seed. */
  public static final String FEED = "board";
  /** The hash holding the counter, as in the seed. */
  public static final String COUNTER = "counter";
  /** The counter's field, as in the seed. */
  public static final String COUNTER_FIELD = "board";
  /** Present while the feed holds every post in the database. */
  public static final String COMPLETE = "stowage:board:complete";
  /** How long a command may take before the caller falls back. */
  public static final Duration TIMEOUT = Duration.ofSeconds(2);

  private static final byte[] FEED_KEY = bytes(FEED);
  private static final byte[] COUNTER_KEY = bytes(COUNTER);
  private static final byte[] COUNTER_FIELD_BYTES = bytes(COUNTER_FIELD);
  private static final byte[] COMPLETE_KEY = bytes(COMPLETE);
  private static final int ZADD_CHUNK = 500;

  private static final Logger log = LoggerFactory.getLogger(BoardFeed.class);
  private static final long RECONNECT_INTERVAL_NANOS = Duration.ofSeconds(1).toNanos();

  private static final String REPLACE_AT_SCORES = "for i = 1, #ARGV, 2 do"
      + " redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[i], ARGV[i])"
      + " redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end return 1";

  private final ClientResources resources;
  private final RedisClient client;
  private final RedisURI uri;
  private volatile StatefulRedisConnection<byte[], byte[]> connection;
  private final AtomicBoolean connecting = new AtomicBoolean();
  private volatile long nextAttemptNanos;
  /** Moves on whenever what this process read from the feed may have changed. */
  private final AtomicLong generation = new AtomicLong();
  /** Whether Redis tracks this connection's reads and pushes invalidations for them. */
  private volatile boolean tracking;
  private final reactor.core.Disposable connectionEvents;

  /** Connects to {@code uri}; when Redis is unreachable, keeps trying in the background. */
  public BoardFeed(String uri) {
    this.resources = DefaultClientResources.builder()
        .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
            TimeUnit.MILLISECONDS))
        .build();
    this.client = RedisClient.create(resources);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
        .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
        .protocolVersion(ProtocolVersion.RESP3)
        .build());
    this.uri = RedisURI.create(uri);
    // A connection that goes down may miss invalidations: forget what was read, track again.
    this.connectionEvents = resources.eventBus().get().subscribe(event -> {
      if (event instanceof ConnectionDeactivatedEvent) {
        tracking = false;
        generation.incrementAndGet();
      } else if (event instanceof ConnectionActivatedEvent) {
        generation.incrementAndGet();
        StatefulRedisConnection<byte[], byte[]> current = connection;
        if (current != null) {
          startTracking(current);
        }
      }
    });
    try {
      this.connection = adopt(client.connect(ByteArrayCodec.INSTANCE, this.uri));
    } catch (RedisConnectionException e) {
      // Start anyway: the database serves every request until Redis answers.
      log.warn("Redis at {} is unreachable ({}); serving from the database until it answers",
          uri, e.getMessage());
      nextAttemptNanos = System.nanoTime() + RECONNECT_INTERVAL_NANOS;
    }
  }

  /**
   * The commands of the shared connection. Once connected, Lettuce reconnects by itself; before
   * the first connection succeeds, this tries again in the background at most once a second.
   *
   * @throws RedisConnectionException while Redis has never been reached
   */
  private RedisAsyncCommands<byte[], byte[]> redis() {
    StatefulRedisConnection<byte[], byte[]> current = connection;
    if (current != null) {
      return current.async();
    }
    if (System.nanoTime() - nextAttemptNanos >= 0 && connecting.compareAndSet(false, true)) {
      client.connectAsync(ByteArrayCodec.INSTANCE, uri).whenComplete((connected, failure) -> {
        if (connected != null) {
          connection = adopt(connected);
          log.info("connected to Redis at {}", uri);
        } else {
          nextAttemptNanos = System.nanoTime() + RECONNECT_INTERVAL_NANOS;
        }
        connecting.set(false);
      });
    }
    throw new RedisConnectionException("Redis at " + uri + " has not been reached yet");
  }

  /** Listens for invalidations on a new connection and asks Redis to track its reads. */
  private StatefulRedisConnection<byte[], byte[]> adopt(StatefulRedisConnection<byte[], byte[]> connected) {
    connected.addListener(message -> {
      if ("invalidate".equals(message.getType())) {
        generation.incrementAndGet();
      }
    });
    startTracking(connected);
    return connected;
  }

  private void startTracking(StatefulRedisConnection<byte[], byte[]> on) {
    on.async().clientTracking(TrackingArgs.Builder.enabled()).whenComplete((ok, failure) -> {
      if (failure == null) {
        generation.incrementAndGet();
        tracking = true;
      } else {
        log.warn("Redis at {} does not track reads ({}); pages are not kept in this process",
            uri, failure.toString());
      }
    });
  }

  /**
   * A number that changes whenever a page this process read from the feed may have changed in
   * Redis: Redis tracks the connection's reads ({@code CLIENT TRACKING}, RESP3) and pushes an
   * invalidation when another client (or this one) writes a key read; a reconnection and this
   * process's own writes move it too. {@code -1} while Redis does not track reads: nothing may then
   * be kept. A page read while the number stayed the same is still what Redis holds.
   */
  public long generation() {
    return tracking ? generation.get() : -1;
  }

  /**
   * Reserves {@code count} scores above the counter and {@code floor} ({@link
   * BoardScores#RESERVE_SCRIPT}); emits the last one, or nothing when Redis holds no counter.
   */
  public Mono<Long> reserveScores(int count, long floor) {
    byte[][] keys = {COUNTER_KEY};
    byte[][] args = {COUNTER_FIELD_BYTES, bytes(Integer.toString(count)), bytes(Long.toString(floor))};
    return mono(() -> redis().<Long>evalsha(BoardScores.RESERVE_SHA, ScriptOutputType.INTEGER, keys,
            args))
        .onErrorResume(RedisNoScriptException.class, e -> mono(() -> redis().<Long>eval(
            BoardScores.RESERVE_SCRIPT, ScriptOutputType.INTEGER, keys, args)))
        .filter(last -> last != BoardScores.NO_COUNTER);
  }

  /** Raises the counter to at least {@code atLeast}, creating it when missing (never lowers it). */
  public Mono<Long> raiseCounter(long atLeast) {
    return mono(() -> redis().<Long>eval(BoardScores.RAISE_SCRIPT, ScriptOutputType.INTEGER,
        new byte[][] {COUNTER_KEY}, COUNTER_FIELD_BYTES, bytes(Long.toString(atLeast))));
  }

  /** Adds fragments with their scores: one {@code ZADD} per 500, all sent as one pipeline. */
  public Mono<Void> add(List<ScoredValue<byte[]>> members) {
    if (members.isEmpty()) {
      return Mono.empty();
    }
    return Mono.defer(() -> {
      List<CompletableFuture<?>> sent = new ArrayList<>();
      for (int from = 0; from < members.size(); from += ZADD_CHUNK) {
        List<ScoredValue<byte[]>> chunk =
            members.subList(from, Math.min(members.size(), from + ZADD_CHUNK));
        @SuppressWarnings("unchecked")
        ScoredValue<byte[]>[] array = chunk.toArray(new ScoredValue[0]);
        sent.add(redis().zadd(FEED_KEY, array).toCompletableFuture());
      }
      return Mono.fromFuture(CompletableFuture.allOf(sent.toArray(new CompletableFuture[0])));
    }).onErrorMap(BoardFeed::isConnectionLoss, BoardFeed::connectionLost)
        .doFinally(signal -> generation.incrementAndGet());
  }

  /**
   * Stores fragments in place of whatever the feed holds at their scores: a score belongs to one
   * post, so this replaces an older encoding of the same post instead of adding a second member.
   * One script call per 500, all sent as one pipeline.
   */
  public Mono<Void> replace(List<ScoredValue<byte[]>> members) {
    if (members.isEmpty()) {
      return Mono.empty();
    }
    return Mono.defer(() -> {
      List<CompletableFuture<?>> sent = new ArrayList<>();
      for (int from = 0; from < members.size(); from += ZADD_CHUNK) {
        List<ScoredValue<byte[]>> chunk =
            members.subList(from, Math.min(members.size(), from + ZADD_CHUNK));
        byte[][] args = new byte[chunk.size() * 2][];
        for (int i = 0; i < chunk.size(); i++) {
          args[2 * i] = bytes(Long.toString((long) chunk.get(i).getScore()));
          args[2 * i + 1] = chunk.get(i).getValue();
        }
        sent.add(redis().<Long>eval(REPLACE_AT_SCORES, ScriptOutputType.INTEGER,
            new byte[][] {FEED_KEY}, args).toCompletableFuture());
      }
      return Mono.fromFuture(CompletableFuture.allOf(sent.toArray(new CompletableFuture[0])));
    }).onErrorMap(BoardFeed::isConnectionLoss, BoardFeed::connectionLost)
        .doFinally(signal -> generation.incrementAndGet());
  }

  /** One page, newest first, and whether the feed is complete; both in one round trip. */
  public Mono<CachedPage> page(long offset, int count) {
    return Mono.defer(() -> {
      RedisFuture<Long> complete = redis().exists(COMPLETE_KEY);
      RedisFuture<List<byte[]>> members = redis().zrevrangebyscore(FEED_KEY,
          Range.unbounded(), Limit.create(offset, count));
      return Mono.fromFuture(complete.toCompletableFuture()).zipWith(
          Mono.fromFuture(members.toCompletableFuture()),
          (exists, list) -> new CachedPage(exists > 0, list));
    }).onErrorMap(BoardFeed::isConnectionLoss, BoardFeed::connectionLost);
  }

  /** The fragment scored {@code score}, or empty. */
  public Mono<byte[]> byScore(long score) {
    return mono(() -> redis().zrangebyscore(FEED_KEY, Range.create(score, score), Limit.create(0, 1)))
        .flatMap(list -> list.isEmpty() ? Mono.empty() : Mono.just(list.get(0)));
  }

  /** Marks the feed complete. */
  public Mono<Void> markComplete() {
    return mono(() -> redis().set(COMPLETE_KEY, bytes("1"))).then()
        .doFinally(signal -> generation.incrementAndGet());
  }

  /** Key naming the dictionary the feed's members are compressed with (hex id). */
  public static final String DICTIONARY = "stowage:board:dictionary";

  /** The hex id in {@value #DICTIONARY}, or empty. */
  public Mono<String> dictionaryId() {
    return mono(() -> redis().get(bytes(DICTIONARY)))
        .map(value -> new String(value, StandardCharsets.UTF_8));
  }

  /** Records the dictionary in use (only if none is recorded yet); returns the recorded one. */
  public Mono<String> recordDictionaryId(String hexId) {
    return mono(() -> redis().setnx(bytes(DICTIONARY), bytes(hexId)))
        .then(dictionaryId());
  }

  /**
   * A dictionary store over the shared connection. Its calls block: use it off event loops.
   *
   * @throws RedisConnectionException while Redis has never been reached
   */
  public DictionaryStore dictionaryStore() {
    StatefulRedisConnection<byte[], byte[]> current = connection;
    if (current == null) {
      redis();
    }
    return new DictionaryStore(connection);
  }

  /** Number of members in the feed. */
  public Mono<Long> size() {
    return mono(() -> redis().zcard(FEED_KEY));
  }

  @Override
  public void close() {
    connectionEvents.dispose();
    StatefulRedisConnection<byte[], byte[]> current = connection;
    if (current != null) {
      current.close();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  private static <T> Mono<T> mono(Supplier<RedisFuture<T>> command) {
    return Mono.defer(() -> Mono.fromFuture(command.get().toCompletableFuture()))
        .onErrorMap(BoardFeed::isConnectionLoss, BoardFeed::connectionLost);
  }

  /**
   * Whether a command failed because the connection broke under it: Lettuce completes the
   * commands in flight with the socket's own {@link java.io.IOException} (such as "Connection
   * reset by peer"), not with a {@link io.lettuce.core.RedisException}.
   */
  private static boolean isConnectionLoss(Throwable e) {
    return e instanceof java.io.IOException;
  }

  private static RedisConnectionException connectionLost(Throwable e) {
    return new RedisConnectionException("the connection to Redis broke: " + e.getMessage(), e);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A page read from the feed. */
  public record CachedPage(boolean complete, List<byte[]> members) {}
}
