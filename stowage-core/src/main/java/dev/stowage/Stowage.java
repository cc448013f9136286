package dev.stowage;

import static java.util.Objects.requireNonNull;

import dev.stowage.compress.DictionaryStore;
import dev.stowage.compress.ZstdDictionary;
import dev.stowage.internal.redis.CodecSettings;
import dev.stowage.internal.redis.RedisSession;
import io.lettuce.core.RedisURI;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The front door: one connection to Redis, from which caches and feeds are made.
 *
 * <pre>{@code
 * try (Stowage stowage = Stowage.builder().redis("redis://localhost:6379").build()) {
 *   RedisCache<String, User> users = stowage.cache("users", User.class).build();
 *   users.put("42", user);
 *   User same = users.get("42");
 *   Feed<Post> posts = stowage.feed("board", Post.class).build();
 *   List<Feed.Entry<Post>> newest = posts.page(1, 20);
 * }
 * }</pre>
 *
 * <p>A {@code Stowage} owns one shared, multiplexed Lettuce connection that every cache and feed
 * made from it uses, from any thread. Bulk operations send one command per chunk of keys on that
 * same connection, so it never has to stop flushing for a hand-made pipeline. The connection
 * reconnects on its own: while Redis is unreachable calls fail at once, or within the
 * {@linkplain Builder#commandTimeout(Duration) command timeout}, with a
 * {@link CacheUnavailableException} naming the address, and they work again once Redis is back.
 * It also owns a {@link DictionaryStore} over the same connection, through which every cache
 * reads the zstd dictionaries that its values name; the dictionaries its caches and feeds write
 * with are saved again after each reconnection, in case Redis restarted empty.
 *
 * <p>Thread-safe. Create one per Redis and application, and close it on shutdown: caches and feeds
 * made from it stop working then.
 */
public final class Stowage implements AutoCloseable {
  /** How long a command may take unless {@link Builder#commandTimeout(Duration)} says otherwise. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);
  /**
   * The longest command timeout: {@link Integer#MAX_VALUE} milliseconds (about 24.8 days). It is
   * also the connect timeout, which Netty keeps as an {@code int} of milliseconds.
   */
  public static final Duration MAX_COMMAND_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

  private static final System.Logger LOG = System.getLogger("dev.stowage");

  private final RedisSession session;
  private final DecompressionBudget decompressionBudget;
  private final DictionaryStore dictionaries;
  private final Set<ZstdDictionary> dictionariesInUse = ConcurrentHashMap.newKeySet();

  private Stowage(RedisSession session, DecompressionBudget decompressionBudget) {
    this.session = session;
    this.decompressionBudget = decompressionBudget;
    this.dictionaries = new DictionaryStore(session.shared());
    session.onActivation(this::saveDictionariesInUse);
  }

  /** Starts a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts a cache named {@code name}, with string keys and values of {@code type}. The name is the
   * default key prefix ({@code name + ":"}). Two caches with one name share their keys.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public <V> RedisCache.Builder<String, V> cache(String name, Class<V> type) {
    requireName(name);
    requireNonNull(type, "type");
    return new RedisCache.Builder<>(this, name, type, Function.identity());
  }

  /**
   * Starts a feed named {@code name} of values of {@code type}: a newest-first sorted set read by
   * page. The name is the default key of the sorted set.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public <V> Feed.Builder<V> feed(String name, Class<V> type) {
    requireName(name);
    requireNonNull(type, "type");
    return new Feed.Builder<>(this, name, type);
  }

  /** The store of zstd dictionaries that caches and feeds read through. */
  public DictionaryStore dictionaries() {
    return dictionaries;
  }

  /** The Redis address, such as {@code 127.0.0.1:6379}. */
  public String address() {
    return session.address();
  }

  RedisSession session() {
    return session;
  }

  /** The budget the caches and feeds of this Stowage decompress within. */
  DecompressionBudget decompressionBudget() {
    return decompressionBudget;
  }

  /**
   * Saves a dictionary that a cache or feed writes with, now and again after every reconnection,
   * so that a restarted, empty Redis gets it back and other processes can read the values.
   */
  void useDictionary(ZstdDictionary dictionary) {
    dictionaries.save(dictionary);
    dictionariesInUse.add(dictionary);
  }

  /** Where the caches and feeds of this Stowage record dictionaries they learn. */
  CodecSettings.Learning learning(String scope, java.util.concurrent.Executor executor) {
    return new CodecSettings.Learning(session, this::useDictionary, executor, scope);
  }

  private void saveDictionariesInUse() {
    for (ZstdDictionary dictionary : dictionariesInUse) {
      try {
        dictionaries.save(dictionary);
      } catch (StowageException | IllegalStateException e) {
        LOG.log(Level.WARNING, "could not save zstd dictionary " + dictionary.hexId() + " to Redis at "
            + session.address() + " after reconnecting: " + e.getMessage());
      }
    }
  }

  static void requireName(String name) {
    requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a name must not be blank");
    }
  }

  /** Closes the connections. Idempotent. */
  @Override
  public void close() {
    session.close();
  }

  @Override
  public String toString() {
    return "Stowage[" + session.address() + "]";
  }

  /** Configures a {@link Stowage}. Not thread-safe. */
  public static final class Builder {
    private RedisURI uri;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private DecompressionBudget decompressionBudget = DecompressionBudget.shared();

    private Builder() {}

    /**
     * The Redis to use, as a URI such as {@code redis://host:6379}, {@code rediss://} for TLS, or
     * with a password and database ({@code redis://:secret@host:6379/2}).
     *
     * @throws IllegalArgumentException if the URI is malformed
     */
    public Builder redis(String uri) {
      requireNonNull(uri, "uri");
      try {
        this.uri = RedisURI.create(uri);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("not a Redis URI: " + uri + " (" + e.getMessage() + ")", e);
      }
      return this;
    }

    /** The Redis to use, as a Lettuce {@link RedisURI}. Its own timeout is replaced by the command timeout. */
    public Builder redis(RedisURI uri) {
      this.uri = requireNonNull(uri, "uri");
      return this;
    }

    /**
     * How long one round trip may take before the call fails with
     * {@link CacheUnavailableException}; also the connect timeout. From 1 ms to
     * {@link #MAX_COMMAND_TIMEOUT}; {@link #DEFAULT_COMMAND_TIMEOUT} by default.
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * The budget within which every cache and feed of this Stowage decompresses values, so that
     * many reads of values that decompress to their limit at once stay within it;
     * {@link DecompressionBudget#shared()}, one for the whole JVM, by default.
     */
    public Builder decompressionBudget(DecompressionBudget budget) {
      this.decompressionBudget = requireNonNull(budget, "budget");
      return this;
    }

    /**
     * Connects.
     *
     * @throws IllegalStateException if no Redis was given
     * @throws IllegalArgumentException if the command timeout is under a millisecond or over
     *     {@link #MAX_COMMAND_TIMEOUT}
     * @throws CacheUnavailableException if Redis cannot be reached
     */
    public Stowage build() {
      if (uri == null) {
        throw new IllegalStateException("no Redis given; call redis(\"redis://host:port\") first");
      }
      if (commandTimeout.compareTo(Duration.ofMillis(1)) < 0 || commandTimeout.compareTo(MAX_COMMAND_TIMEOUT) > 0) {
        throw new IllegalArgumentException("commandTimeout must be from 1 ms to " + MAX_COMMAND_TIMEOUT.toMillis()
            + " ms (Stowage.MAX_COMMAND_TIMEOUT), got " + commandTimeout);
      }
      return new Stowage(RedisSession.open(uri, commandTimeout), decompressionBudget);
    }
  }
}
