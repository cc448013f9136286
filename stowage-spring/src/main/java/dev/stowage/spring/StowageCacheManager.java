package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.MissingLibraryException;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.TypeRef;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.Cache;
import org.springframework.cache.support.AbstractCacheManager;

/**
 * Spring's {@link org.springframework.cache.CacheManager} over Stowage: each cache name is a {@link
 * StowageCache}. The caches named under {@code stowage.caches} are made when the manager starts, so
 * that their settings are checked then; any other name is made on first use with the settings under
 * {@code stowage.defaults}.
 *
 * <pre>{@code
 * StowageCacheManager manager = new StowageCacheManager(stowage, properties, List.of("com.example"),
 *     getClass().getClassLoader());
 * }</pre>
 */
public class StowageCacheManager extends AbstractCacheManager {
  /** What a cache's keys start with after its name, as Spring's RedisCacheManager writes them. */
  public static final String KEY_SEPARATOR = "::";

  static final List<String> COMPRESSIONS = List.of("learned", "standard", "zstd", "lz4", "none");

  private final Stowage stowage;
  private final StowageProperties properties;
  private final ClassAllowlist allowlist;
  private final ClassLoader classLoader;
  private final List<Consumer<? super StowageCache>> newCacheListeners =
      new CopyOnWriteArrayList<>();

  /** The names of the caches made on first use whose listeners were told. */
  private final Set<String> announced = ConcurrentHashMap.newKeySet();

  /** What the default key prefix has before the cache's name: spring.cache.redis.key-prefix. */
  private volatile String namePrefix = "";

  /**
   * A manager of caches made from {@code stowage} with {@code properties}, whose caches without a
   * type read back classes of {@code allowedPackages} (and their subpackages) and of {@code
   * stowage.allowed-packages}, loaded through {@code classLoader}.
   *
   * @throws IllegalArgumentException naming the property at fault, for a bad default
   */
  public StowageCacheManager(
      Stowage stowage,
      StowageProperties properties,
      Collection<String> allowedPackages,
      ClassLoader classLoader) {
    this.stowage = requireNonNull(stowage, "stowage");
    this.properties = requireNonNull(properties, "properties");
    List<String> packages = new ArrayList<>(allowedPackages);
    packages.addAll(properties.getAllowedPackages());
    this.allowlist = new ClassAllowlist(packages);
    this.classLoader = requireNonNull(classLoader, "classLoader");
    checkSettings(null);
  }

  @Override
  protected Collection<? extends Cache> loadCaches() {
    List<Cache> caches = new ArrayList<>();
    for (String name : properties.getCaches().keySet()) {
      caches.add(create(name));
    }
    return caches;
  }

  @Override
  protected Cache getMissingCache(String name) {
    return create(name);
  }

  /**
   * The cache {@code name}, made on first use with the settings under {@code stowage.defaults}; a
   * cache made by this call is then passed to the actions of {@link #onCacheMade}. (Two threads
   * asking first for one name may both make it; the one kept is passed, once.)
   */
  @Override
  public @Nullable Cache getCache(String name) {
    Cache existing = lookupCache(name);
    if (existing != null) {
      return existing;
    }
    Cache cache = super.getCache(name);
    if (cache instanceof StowageCache made && announced.add(name)) {
      newCacheListeners.forEach(listener -> listener.accept(made));
    }
    return cache;
  }

  /**
   * Passes {@code action} each cache this manager makes on first use from now on, once it is made
   * (the caches under {@code stowage.caches} are made when the manager starts): how meters are
   * bound to caches made after the application started. {@code action} runs in the thread that
   * asked for the cache first.
   */
  public void onCacheMade(Consumer<? super StowageCache> action) {
    newCacheListeners.add(requireNonNull(action, "action"));
  }

  /** The caches made so far, in the order of their names. */
  List<StowageCache> caches() {
    List<StowageCache> caches = new ArrayList<>();
    for (String name : getCacheNames()) {
      if (lookupCache(name) instanceof StowageCache cache) {
        caches.add(cache);
      }
    }
    return caches;
  }

  /**
   * Puts {@code prefix} before the name in the key prefix of every cache without one of its own
   * ({@code <prefix><name>::}), as Spring's {@code spring.cache.redis.key-prefix} does; for the
   * auto-configuration, before the manager makes its caches.
   */
  void prefixCacheNamesWith(String prefix) {
    this.namePrefix = requireNonNull(prefix, "prefix");
  }

  /** The packages whose classes caches without a type read back, besides the JDK value classes. */
  public List<String> allowedPackages() {
    return allowlist.packages();
  }

  private StowageCache create(String name) {
    Settings settings = checkSettings(name);
    RedisCache.Builder<Object, Object> builder =
        stowage
            .cache(name, Object.class)
            .keys(StowageCache::keyText)
            .keyPrefix(settings.keyPrefix)
            .encoding(settings.encoding)
            .ttlJitter(settings.ttlJitter);
    if (settings.ttl == null) {
      builder.noExpiry();
    } else {
      builder.ttl(settings.ttl);
    }
    if (settings.nearCache != null) {
      builder.nearCache(settings.nearCache);
    }
    if (Boolean.TRUE.equals(
        setting(name, "load-when-unavailable", StowageProperties.Cache::getLoadWhenUnavailable)
            .value())) {
      builder.loadWhenUnavailable();
    }
    try {
      return new StowageCache(builder.build(), properties.isCacheNullValues(), settings);
    } catch (MissingLibraryException e) {
      throw new IllegalStateException(
          "cache '" + name + "' (stowage.caches." + name + "): " + e.getMessage(), e);
    }
  }

  /** A setting of a cache: its value and the property it came from. */
  private record Setting<T>(@Nullable T value, String property) {}

  private <T> Setting<T> setting(
      @Nullable String name, String key, Function<StowageProperties.Cache, @Nullable T> get) {
    StowageProperties.Cache own = name == null ? null : properties.getCaches().get(name);
    if (own != null && get.apply(own) != null) {
      return new Setting<>(get.apply(own), "stowage.caches." + name + "." + key);
    }
    return new Setting<>(get.apply(properties.getDefaults()), "stowage.defaults." + key);
  }

  /**
   * A cache's settings, checked.
   *
   * @param compression the compression setting, such as {@code learned}
   */
  record Settings(
      String keyPrefix,
      @Nullable Duration ttl,
      double ttlJitter,
      Encoding<Object> encoding,
      String compression,
      @Nullable NearCache nearCache) {}

  /**
   * Checks the settings of cache {@code name}, or the defaults when it is null, and returns them.
   */
  private Settings checkSettings(@Nullable String name) {
    String cacheName = name == null ? "default" : name;
    Setting<Duration> ttl = setting(name, "ttl", StowageProperties.Cache::getTtl);
    Duration ttlValue = ttl.value() == null ? RedisCache.DEFAULT_TTL : ttl.value();
    if (ttlValue.isNegative()) {
      throw new IllegalArgumentException(
          ttl.property()
              + " must not be negative, got "
              + ttlValue
              + "; 0 makes entries that never expire");
    }
    if (ttlValue.compareTo(RedisCache.MAX_TTL) > 0
        || (!ttlValue.isZero() && ttlValue.toNanos() < 1_000_000)) {
      throw new IllegalArgumentException(
          ttl.property()
              + " must be 0 (never expire) or from 1 ms to "
              + RedisCache.MAX_TTL.toDays()
              + " days, got "
              + ttlValue);
    }
    Setting<Double> jitter = setting(name, "ttl-jitter", StowageProperties.Cache::getTtlJitter);
    double jitterValue = jitter.value() == null ? RedisCache.DEFAULT_TTL_JITTER : jitter.value();
    if (!(jitterValue >= 0 && jitterValue < 1)) {
      throw new IllegalArgumentException(
          jitter.property() + " must be from 0 up to but excluding 1, got " + jitterValue);
    }
    Setting<String> type = setting(name, "type", StowageProperties.Cache::getType);
    TypeRef<Object> valueType = valueType(type);
    Setting<String> codecName = setting(name, "codec", StowageProperties.Cache::getCodec);
    Codec<Object> codec = codec(cacheName, valueType, type, codecName);
    Setting<String> compression =
        setting(name, "compression", StowageProperties.Cache::getCompression);
    Encoding<Object> encoding = Encoding.of(codec);
    if (compression.value() != null) {
      encoding =
          switch (compression.value().strip().toLowerCase(Locale.ROOT)) {
            case "learned" -> encoding;
            case "standard" -> encoding.compression(Compression.standard());
            case "zstd" -> encoding.compression(Compression.zstd());
            case "lz4" -> encoding.compression(Compression.lz4());
            case "none" -> encoding.compression(Compression.none());
            default ->
                throw new IllegalArgumentException(
                    compression.property()
                        + ": unknown compression '"
                        + compression.value()
                        + "'; choose from "
                        + String.join(", ", COMPRESSIONS));
          };
    }
    encoding = withLegacy(name, valueType, encoding);
    Setting<String> prefix = setting(name, "key-prefix", StowageProperties.Cache::getKeyPrefix);
    String keyPrefix =
        prefix.value() == null ? namePrefix + cacheName + KEY_SEPARATOR : prefix.value();
    if (keyPrefix.isBlank()) {
      throw new IllegalArgumentException(
          prefix.property()
              + " must not be empty or blank, got '"
              + keyPrefix
              + "': clear() (@CacheEvict(allEntries = true)) would remove the keys of the whole database; leave it out"
              + " for '"
              + cacheName
              + KEY_SEPARATOR
              + "', or give one that ends with a separator");
    }
    String compressionName =
        compression.value() == null
            ? "learned"
            : compression.value().strip().toLowerCase(Locale.ROOT);
    return new Settings(
        keyPrefix,
        ttlValue.isZero() ? null : ttlValue,
        jitterValue,
        encoding,
        compressionName,
        nearCache(name));
  }

  /** The type {@code type} names as a Java type, generics included, or null when it is not set. */
  @SuppressWarnings("unchecked")
  private @Nullable TypeRef<Object> valueType(Setting<String> type) {
    if (type.value() == null || type.value().isBlank()) {
      return null;
    }
    try {
      return (TypeRef<Object>)
          TypeRef.of(JavaTypeText.parse(type.value().strip(), classLoader, name -> true));
    } catch (IllegalArgumentException e) {
      // The parser's message is all there is to say: the property first, for the start's report.
      throw new IllegalArgumentException(type.property() + ": " + e.getMessage());
    }
  }

  /**
   * The codec of a cache: over the codec for {@code valueType} when {@code type} set one, and
   * otherwise naming each value's type.
   */
  private Codec<Object> codec(
      String cacheName,
      @Nullable TypeRef<Object> valueType,
      Setting<String> type,
      Setting<String> codecName) {
    String chosen =
        codecName.value() == null ? null : codecName.value().strip().toLowerCase(Locale.ROOT);
    if (chosen != null && !Codecs.names().contains(chosen)) {
      throw new IllegalArgumentException(
          codecName.property()
              + ": unknown codec '"
              + codecName.value()
              + "'; choose from "
              + String.join(", ", Codecs.names()));
    }
    try {
      if (valueType != null) {
        String typedName = chosen == null ? "msgpack-compact" : chosen;
        return TypedCodec.of(ShapedCodec.of(typedCodec(typedName, valueType), valueType));
      }
      String perClass = chosen == null ? "msgpack" : chosen;
      try {
        Codecs.forName(perClass, String.class);
      } catch (IllegalArgumentException e) {
        // The library is there; this codec only takes other classes (generated messages, ...).
      }
      return new ClassNamingCodec(
          cacheName,
          perClass,
          allowlist,
          classLoader,
          perType -> Encoding.of(perType).compression(Compression.none()).serializer(stowage));
    } catch (MissingLibraryException e) {
      throw new IllegalStateException(codecName.property() + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          codecName.property()
              + " with "
              + type.property()
              + "="
              + type.value()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * {@code encoding} with the legacy codec of {@code legacy-codec}, written too with {@code
   * write-legacy}.
   */
  private Encoding<Object> withLegacy(
      @Nullable String name, @Nullable TypeRef<Object> type, Encoding<Object> encoding) {
    Setting<String> legacyName =
        setting(name, "legacy-codec", StowageProperties.Cache::getLegacyCodec);
    Setting<Boolean> writeLegacy =
        setting(name, "write-legacy", StowageProperties.Cache::getWriteLegacy);
    boolean writes = Boolean.TRUE.equals(writeLegacy.value());
    if (legacyName.value() == null) {
      if (writes) {
        throw new IllegalArgumentException(
            writeLegacy.property()
                + " is true, but no legacy codec is set to write"
                + " with: set "
                + (name == null ? "stowage.defaults" : "stowage.caches." + name)
                + ".legacy-codec to what"
                + " the old readers read ("
                + String.join(", ", SpringLegacyCodec.NAMES)
                + ")");
      }
      return encoding;
    }
    Codec<Object> legacy =
        SpringLegacyCodec.of(
            legacyName.value().strip().toLowerCase(Locale.ROOT),
            legacyName.property(),
            type,
            allowlist);
    return writes ? encoding.writeLegacy(legacy) : encoding.legacy(legacy);
  }

  /**
   * The codec named {@code codecName} for values of {@code type}, which may have type arguments.
   */
  @SuppressWarnings("unchecked")
  private static Codec<Object> typedCodec(String codecName, TypeRef<Object> type) {
    if (type.type() instanceof Class<?> plain) {
      return (Codec<Object>) Codecs.forName(codecName, plain);
    }
    return switch (codecName) {
      case "msgpack-compact" -> Codecs.msgpackCompact(type);
      case "msgpack" -> Codecs.msgpack(type);
      case "json" -> Codecs.json(type);
      default ->
          throw new IllegalArgumentException(
              "codec "
                  + codecName
                  + " takes a class, not "
                  + type
                  + "; choose msgpack-compact (the default), msgpack or json");
    };
  }

  private @Nullable NearCache nearCache(@Nullable String name) {
    Setting<Boolean> enabled =
        setting(name, "near-cache.enabled", c -> c.getNearCache().getEnabled());
    if (enabled.value() == null || !enabled.value()) {
      return null;
    }
    Setting<Long> size =
        setting(name, "near-cache.maximum-size", c -> c.getNearCache().getMaximumSize());
    Setting<Duration> expiry =
        setting(name, "near-cache.expire-after-write", c -> c.getNearCache().getExpireAfterWrite());
    try {
      NearCache nearCache =
          size.value() == null ? NearCache.defaults() : NearCache.maximumSize(size.value());
      return expiry.value() == null ? nearCache : nearCache.expireAfterWrite(expiry.value());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          (name == null ? "stowage.defaults" : "stowage.caches." + name)
              + ".near-cache: "
              + e.getMessage(),
          e);
    }
  }
}
