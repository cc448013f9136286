package dev.stowage.cache;

import dev.stowage.CacheLayout;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs a test class once per cache layout, as Caffeine's {@code @CacheSpec} runs a test over every
 * configuration: the class takes the layout in a field, {@code @Parameter CacheLayout layout}, and
 * builds its caches with {@code .layout(layout)}. A test about one layout alone stays in a class of
 * its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedClass(name = "{0}")
@MethodSource("dev.stowage.cache.EveryLayout$Layouts#all")
public @interface EveryLayout {
  /** The layouts: key-per-value, and packed into about 64 buckets. */
  final class Layouts {
    private Layouts() {}

    static Stream<CacheLayout> all() {
      return Stream.of(CacheLayout.keyPerValue(), CacheLayout.packedBuckets(64));
    }

    /**
     * Skips a test that reads or writes Redis's keys as the key-per-value layout lays them out (a
     * string per entry, its own TTL, one key per entry removed); the packed layout has such tests
     * of its own.
     */
    public static void assumeKeyPerValue(CacheLayout layout) {
      Assumptions.assumeFalse(
          layout.isPacked(), "reads Redis's keys as the key-per-value layout lays them out");
    }
  }
}
