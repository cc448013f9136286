package dev.stowage.cache;

import dev.stowage.CacheLayout;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs a test class once per cache layout, as Caffeine's {@code @CacheSpec} runs a test over every
 * configuration: the class takes the layout in a field, {@code @Parameter CacheLayout layout}, and
 * builds its caches with {@code .layout(layout)}. Every test of such a class runs, and passes, on
 * every layout; none is skipped for one. A test that looks at Redis behind the cache's back finds
 * the entry where the layout puts it ({@link StoredEntries}), and what it expects of keys the
 * entries take (how many {@code clear()} removes, which TTL a key has) follows from {@link
 * dev.stowage.RedisCache#redisKey}. A test about one layout alone stays in a class of its own:
 * {@code KeyPerValueLayoutIntegrationTests}, and {@code PackedCacheIntegrationTests}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedClass(name = "{0}")
@MethodSource("dev.stowage.cache.EveryLayout$Layouts#all")
public @interface EveryLayout {
  /** The layouts: key-per-value, and packed into 64 buckets. */
  final class Layouts {
    private Layouts() {}

    static Stream<CacheLayout> all() {
      return Stream.of(CacheLayout.keyPerValue(), CacheLayout.packedBuckets(64));
    }
  }
}
