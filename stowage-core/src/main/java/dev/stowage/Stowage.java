package dev.stowage;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.codec.CodecLibraries;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.envelope.DecompressionBudget;
import dev.stowage.internal.nearcache.Tracking;
import dev.stowage.internal.redis.EnvelopePreload;
import dev.stowage.internal.redis.KeyNamespaces;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.internal.store.KeptKey;
import dev.stowage.internal.store.KeptKeys;
import dev.stowage.internal.store.SchemaStore;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The front door: one connection to Redis, from which caches and feeds are made.
 *
 * <pre>{@code
 * try (Stowage stowage = Stowage.builder().redis("redis://localhost:6379").build()) {
 *   RedisCache<String, User> users = stowage.cache("users", User.class).build();
 *   users.put("42", user);
 *   User same = users.get("42");
 *   Feed<Post> posts = stowage.feed("posts", Post.class).build();
 *   List<Feed.Entry<Post>> newest = posts.page(1, 20);
 * }
 * }</pre>
 *
 * <p>A {@code Stowage} owns one shared, multiplexed Lettuce connection that every cache and feed
 * made from it uses, from any thread. Bulk operations send one command per chunk of keys on that
 * same connection, so it never has to stop flushing for a hand-made pipeline. The connection
 * reconnects on its own: while Redis is unreachable calls fail at once, or within the {@linkplain
 * Builder#commandTimeout(Duration) command timeout}, with a {@link CacheUnavailableException}
 * naming the address, and they work again once Redis is back. Through Sentinel ({@code
 * redis-sentinel://} URIs) every reconnection asks the sentinels for the master, so after a
 * failover the same caches and feeds work on the new master. On a Redis Cluster ({@link
 * Builder#redisCluster(String...)}) the connection is Lettuce's cluster connection, one connection
 * per node beneath it, and bulk operations send one command per hash slot and chunk to each master
 * in parallel. It also keeps the zstd dictionaries that values name, read over the same connection
 * once and then held in memory. The dictionaries and schemas its caches and feeds write with are
 * kept in Redis: saved again after each reconnection (Redis may have restarted empty or from an
 * older snapshot, or failed over to a replica without them), and tried again until Redis takes them
 * (a server still loading its data set answers {@code LOADING}); until then a cache or feed writes
 * with the standard compression instead of its dictionary, and a write that needs its schema waits
 * for it, so that other processes can read every value written.
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

  private final RedisSession session;

  /** The bytes of the decompression budget every Stowage shares unless given its own. */
  public static final long DEFAULT_DECOMPRESSION_BYTES = DecompressionBudget.DEFAULT_BYTES;

  private final DecompressionBudget decompressionBudget;
  private final DictionaryStore dictionaries;
  private final SchemaStore schemas;
  private final EnvelopePreload preload;
  private final KeptKeys kept;
  private final KeyNamespaces keyNamespaces = new KeyNamespaces();
  private @Nullable Tracking tracking;

  private Stowage(RedisSession session, DecompressionBudget decompressionBudget) {
    this.session = session;
    this.decompressionBudget = decompressionBudget;
    this.dictionaries = DictionaryStore.over(session::shared);
    this.schemas = new SchemaStore(session::shared);
    this.preload = new EnvelopePreload(dictionaries, schemas);
    this.kept = new KeptKeys(session, dictionaries, schemas);
  }

  /** Starts a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts a cache named {@code name}, with string keys and values of {@code type}. The name is the
   * default key prefix ({@code name + ":"}). Two caches with one name, prefix and layout share
   * their keys; a cache whose keys would overlap those of another live cache or feed of this {@code
   * Stowage} is refused at {@link RedisCache.Builder#build() build()}.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public <V> RedisCache.Builder<String, V> cache(String name, Class<V> type) {
    requireNonNull(type, "type");
    return cache(name, TypeRef.of(type));
  }

  /**
   * Starts a cache of values of a type with type arguments, such as {@code List<Item>}: {@code
   * stowage.cache("lists", new TypeRef<List<Item>>() {})}. Otherwise as {@link #cache(String,
   * Class)}.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public <V> RedisCache.Builder<String, V> cache(String name, TypeRef<V> type) {
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
    requireNonNull(type, "type");
    return feed(name, TypeRef.of(type));
  }

  /**
   * Starts a feed of values of a type with type arguments; otherwise as {@link #feed(String,
   * Class)}.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public <V> Feed.Builder<V> feed(String name, TypeRef<V> type) {
    requireName(name);
    requireNonNull(type, "type");
    return new Feed.Builder<>(this, name, type);
  }

  /**
   * What this Stowage's caches and feeds store in Redis, for tools (an inspector, a dashboard, a
   * benchmark): values' headers and payloads, feed entries, dictionaries and schemas, the names of
   * Stowage's own keys. The stored format is not API; the {@link Inspector} is.
   */
  public Inspector inspector() {
    return new Inspector(this);
  }

  /** The store of zstd dictionaries that caches and feeds read through. */
  DictionaryStore dictionaries() {
    return dictionaries;
  }

  /**
   * The store of the writer schemas of {@linkplain Codec.Evolving evolving codecs}, such as the
   * default compact MessagePack, which caches and feeds read values of another shape through.
   */
  SchemaStore schemas() {
    return schemas;
  }

  /**
   * The Redis address as messages name it: {@code 127.0.0.1:6379}, for Sentinel the master's name
   * and the sentinels, {@code mymaster (sentinels 10.0.0.1:26379, 10.0.0.2:26379)}, and for a
   * cluster its seeds, {@code cluster 10.0.0.1:6379, 10.0.0.2:6379}.
   */
  public String address() {
    return session.address();
  }

  /**
   * Sends {@code PING} to Redis on the shared connection and waits for the answer, at most the
   * {@linkplain Builder#commandTimeout(Duration) command timeout}: whether Redis is reachable now,
   * for a health check.
   *
   * @return how long the answer took
   * @throws CacheUnavailableException if Redis is unreachable, not reached yet, or does not answer
   *     in time
   * @throws StowageException if Redis refuses the command (a user whose ACL does not allow it)
   * @throws IllegalStateException if this Stowage is closed
   */
  public Duration ping() {
    long start = System.nanoTime();
    session.await(session.call("PING", c -> c.ping()), 1, "PING");
    return Duration.ofNanos(System.nanoTime() - start);
  }

  RedisSession session() {
    return session;
  }

  /** The key namespaces of the live caches and feeds made here, none overlapping another. */
  KeyNamespaces keyNamespaces() {
    return keyNamespaces;
  }

  /** Whether this Stowage is on a Redis Cluster. */
  boolean isCluster() {
    return session.isCluster();
  }

  /** The budget the caches and feeds of this Stowage decompress within. */
  DecompressionBudget decompressionBudget() {
    return decompressionBudget;
  }

  /**
   * Keeps a dictionary that a cache or feed writes with in Redis: saved now, and again after every
   * reconnection until Redis takes it, so that a restarted, empty Redis gets it back and other
   * processes can read the values.
   */
  KeptKey useDictionary(ZstdDictionary dictionary) {
    return kept.dictionary(dictionary);
  }

  /** What this Stowage's caches and feeds keep in Redis to be readable by other processes. */
  KeptKeys keptKeys() {
    return kept;
  }

  /**
   * Registers a near cache with the tracking connections, made on first use.
   *
   * @throws MissingLibraryException without Caffeine
   */
  synchronized Tracking.Reader nearCaches(
      NearCache options, String prefix, boolean pages, String owner) {
    CodecLibraries.CAFFEINE.require();
    if (tracking == null) {
      tracking = new Tracking(session);
    }
    return tracking.register(options, prefix, pages, owner);
  }

  EnvelopePreload preload() {
    return preload;
  }

  /**
   * Keeps the schema a cache or feed writes with in Redis: saved now (or, if Redis is away, once it
   * is back), and again after every reconnection until Redis takes it, so that readers of another
   * shape find it.
   */
  KeptKey useSchema(String schema) {
    return kept.schema(schema);
  }

  static void requireName(String name) {
    requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a name must not be blank");
    }
  }

  /**
   * Closes the connection, and the Lettuce resources unless the application gave them through
   * {@link Builder#clientResources}. Idempotent.
   */
  @Override
  public void close() {
    kept.close();
    synchronized (this) {
      if (tracking != null) {
        tracking.close();
      }
    }
    session.close();
  }

  @Override
  public String toString() {
    return "Stowage[" + session.address() + "]";
  }

  /** Configures a {@link Stowage}. Not thread-safe. */
  public static final class Builder {
    private @Nullable RedisURI uri;
    private @Nullable List<RedisURI> clusterSeeds;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private @Nullable Duration connectTimeout;
    private @Nullable ClientResources clientResources;
    private @Nullable ClientOptions clientOptions;
    private boolean connectInBackground;
    private DecompressionBudget decompressionBudget = DecompressionBudget.shared();

    private Builder() {}

    /**
     * The Redis to use, as a URI such as {@code redis://host:6379}, {@code rediss://} for TLS, with
     * an ACL user, password and database ({@code redis://app:secret@host:6379/2}), or a master
     * through its sentinels ({@code redis-sentinel://s1:26379,s2:26379,s3:26379#mymaster}). Lettuce
     * parses it ({@link RedisURI#create(String)}).
     *
     * @throws IllegalArgumentException if the URI is malformed
     */
    public Builder redis(String uri) {
      this.uri = parse(uri);
      this.clusterSeeds = null;
      return this;
    }

    /**
     * The Redis to use, as a Lettuce {@link RedisURI}. Its own timeout is replaced by the command
     * timeout.
     */
    public Builder redis(RedisURI uri) {
      this.uri = requireNonNull(uri, "uri");
      this.clusterSeeds = null;
      return this;
    }

    /**
     * A Redis Cluster to use, through one or more of its nodes ({@code redis://host:port}, or
     * {@code rediss://} for TLS, with an ACL user and password as for {@link #redis(String)}; the
     * cluster's other nodes are found from them), instead of one server:
     *
     * <pre>{@code
     * Stowage.builder().redisCluster("redis://10.0.0.1:6379", "redis://10.0.0.2:6379").build();
     * }</pre>
     *
     * <p>One shared cluster connection (a connection per node beneath it) sends each command to the
     * master that serves its key's hash slot, follows {@code MOVED} and {@code ASK} redirections,
     * and refreshes the topology every 30 seconds and whenever a redirection or a node's
     * reconnection says it changed. {@code getAll}, {@code putAll} and {@code deleteAll} send one
     * command per slot and chunk, each master's chunks in a window of their own and the masters in
     * parallel. A feed's key is {@code {name}} by default, a hash tag, so that its scripts touch
     * one slot. While a master is down, calls for its slots fail fast with {@link
     * CacheUnavailableException} until a replica replaces it; writes it acknowledged but had not
     * replicated yet are lost then. A near cache on a cluster tracks in broadcast mode on a
     * connection of its own to every master, and is used only while every master tracks; a master
     * promoted or added is tracked once a topology refresh has found it (see {@link NearCache}).
     * Timeouts, {@linkplain #clientOptions client options} (TLS), {@linkplain #clientResources
     * resources} and {@link #connectInBackground()} apply as for one server.
     *
     * @throws IllegalArgumentException if no URI is given, or one is malformed, a Sentinel or
     *     socket URI, or names a database other than 0
     */
    public Builder redisCluster(String... seedUris) {
      requireNonNull(seedUris, "seedUris");
      List<RedisURI> seeds = new ArrayList<>();
      for (String seed : seedUris) {
        seeds.add(parse(seed));
      }
      return redisCluster(seeds);
    }

    /**
     * A Redis Cluster to use, through these nodes as Lettuce {@link RedisURI}s (with their
     * credentials and TLS flag); see {@link #redisCluster(String...)}. Their own timeouts are
     * replaced by the command timeout.
     *
     * @throws IllegalArgumentException if the list is empty, or a URI is a Sentinel or socket URI
     *     or names a database other than 0
     */
    public Builder redisCluster(List<RedisURI> seeds) {
      requireNonNull(seeds, "seeds");
      if (seeds.isEmpty()) {
        throw new IllegalArgumentException(
            "redisCluster needs at least one seed URI, such as redis://host:6379");
      }
      for (RedisURI seed : seeds) {
        requireNonNull(seed, "a seed");
        if (seed.getHost() == null || !seed.getSentinels().isEmpty()) {
          throw new IllegalArgumentException(
              "a Redis Cluster seed is a redis:// or rediss:// URI of a node, not " + seed);
        }
        if (seed.getDatabase() != 0) {
          throw new IllegalArgumentException(
              "a Redis Cluster has only database 0, but "
                  + seed
                  + " names database "
                  + seed.getDatabase());
        }
      }
      this.clusterSeeds = List.copyOf(seeds);
      this.uri = null;
      return this;
    }

    private static RedisURI parse(String uri) {
      requireNonNull(uri, "uri");
      try {
        return RedisURI.create(uri);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "not a Redis URI: " + uri + " (" + e.getMessage() + ")", e);
      }
    }

    /**
     * How long one round trip may take before the call fails with {@link
     * CacheUnavailableException}; also the {@linkplain #connectTimeout connect timeout} unless one
     * is given. From 1 ms to {@link #MAX_COMMAND_TIMEOUT}; {@link #DEFAULT_COMMAND_TIMEOUT} by
     * default.
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * How long opening a connection (at {@link #build()} and on every reconnection) may take before
     * it counts as failed. From 1 ms to {@link #MAX_COMMAND_TIMEOUT}; the {@linkplain
     * #commandTimeout command timeout} by default.
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * The application's Lettuce resources (event loops, timers, reconnect delay), to share them
     * with its other Redis clients. {@link Stowage#close()} leaves them running: shutting them down
     * stays the application's job, after every {@code Stowage} using them is closed. Their
     * {@linkplain ClientResources#reconnectDelay() reconnect delay} applies instead of Stowage's
     * own (10 ms, doubling up to 1 s). Without this call, Stowage makes resources of its own and
     * shuts them down on close.
     */
    public Builder clientResources(ClientResources resources) {
      this.clientResources = requireNonNull(resources, "resources");
      return this;
    }

    /**
     * A decompression budget of this Stowage's own: the bytes that the values its caches and feeds
     * are decompressing and decoding may hold at once, and how long a read waits for them when they
     * are taken before it fails (a decode failure, which a cache reads as a miss). Each value is
     * bounded by its encoding's {@link Encoding#maxDecodedSize(int) maxDecodedSize}; the budget
     * bounds them together, so that many reads at once of small values that decompress to that
     * limit cannot multiply it. A read that needs more than the whole budget waits until nothing
     * else holds any and then goes alone.
     *
     * <p>Without this call every Stowage of the JVM shares one budget of {@value
     * #DEFAULT_DECOMPRESSION_BYTES} bytes (64 MiB) and one second of waiting.
     *
     * @throws IllegalArgumentException if {@code bytes} is below 1, or {@code maxWait} is negative
     *     or over a day
     */
    public Builder decompressionBudget(long bytes, Duration maxWait) {
      this.decompressionBudget = DecompressionBudget.of(bytes, requireNonNull(maxWait, "maxWait"));
      return this;
    }

    /**
     * The application's Lettuce client options, such as {@link io.lettuce.core.SslOptions} with a
     * client certificate and the authority to trust, for mutual TLS with a {@code rediss://} URI:
     *
     * <pre>{@code
     * ClientOptions options = ClientOptions.builder()
     *     .sslOptions(SslOptions.builder()
     *         .keyManager(new File("client.crt"), new File("client.key"), null)
     *         .trustManager(new File("ca.crt"))
     *         .build())
     *     .build();
     * Stowage.builder().redis("rediss://redis.internal:6380").clientOptions(options).build();
     * }</pre>
     *
     * <p>Stowage keeps what its guarantees rest on, whatever the options say: automatic
     * reconnection, commands rejected at once while disconnected, and the {@linkplain
     * #commandTimeout command timeout} for every command and the {@linkplain #connectTimeout
     * connect timeout}. Everything else (TLS, the other socket options, the protocol version, …)
     * comes from these options. Without this call, Lettuce's defaults apply, with TCP keep-alive
     * on.
     */
    public Builder clientOptions(ClientOptions options) {
      this.clientOptions = requireNonNull(options, "options");
      return this;
    }

    /**
     * Lets {@link #build()} return while Redis cannot be reached, for a service that must start and
     * serve from its database meanwhile: the connection is tried again every second in the
     * background, and until it succeeds every call of every cache and feed fails at once with
     * {@link CacheUnavailableException} (which {@link RedisCache.Builder#loadWhenUnavailable()}
     * turns into a load). Refused credentials still fail {@code build()}. Off by default: {@code
     * build()} then fails when Redis cannot be reached.
     */
    public Builder connectInBackground() {
      this.connectInBackground = true;
      return this;
    }

    /**
     * Connects: through the sentinels to the master they name, for a Sentinel URI; to the cluster's
     * nodes, for {@link #redisCluster}.
     *
     * @throws IllegalStateException if no Redis was given
     * @throws IllegalArgumentException if the command or connect timeout is under a millisecond or
     *     over {@link #MAX_COMMAND_TIMEOUT}
     * @throws CacheUnavailableException if Redis cannot be reached (for a cluster: none of its
     *     seeds), or the TLS handshake fails (as when the server wants a client certificate that
     *     the options do not hold)
     * @throws StowageException if Redis refuses the credentials ({@code "Redis at host:port refused
     *     the credentials: WRONGPASS …"}) or a step of the connection's setup
     */
    public Stowage build() {
      if (uri == null && clusterSeeds == null) {
        throw new IllegalStateException(
            "no Redis given; call redis(\"redis://host:port\") or redisCluster(...) first");
      }
      checkTimeout("commandTimeout", commandTimeout);
      Duration connect = connectTimeout != null ? connectTimeout : commandTimeout;
      checkTimeout("connectTimeout", connect);
      if (clusterSeeds != null) {
        return new Stowage(
            RedisSession.openCluster(
                clusterSeeds,
                commandTimeout,
                connect,
                clientResources,
                clientOptions,
                connectInBackground),
            decompressionBudget);
      }
      RedisURI uri = requireNonNull(this.uri, "uri");
      return new Stowage(
          connectInBackground
              ? RedisSession.openInBackground(
                  uri, commandTimeout, connect, clientResources, clientOptions)
              : RedisSession.open(uri, commandTimeout, connect, clientResources, clientOptions),
          decompressionBudget);
    }

    private static void checkTimeout(String name, Duration timeout) {
      if (timeout.compareTo(Duration.ofMillis(1)) < 0
          || timeout.compareTo(MAX_COMMAND_TIMEOUT) > 0) {
        throw new IllegalArgumentException(
            name
                + " must be from 1 ms to "
                + MAX_COMMAND_TIMEOUT.toMillis()
                + " ms (Stowage.MAX_COMMAND_TIMEOUT), got "
                + timeout);
      }
    }
  }
}
