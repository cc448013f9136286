package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import dev.stowage.Inspector;
import dev.stowage.Stowage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Stowage's health: UP when Redis answers {@code PING} within the command timeout and holds every
 * zstd dictionary the caches write with (one {@code EXISTS} each, never a scan), so that every
 * process can read their values; DOWN otherwise. Details: {@code address}, the Redis it uses;
 * {@code dictionaries}, each cache's dictionary id; and when one is missing, {@code
 * missingDictionaries}, their Redis keys (Stowage saves them again when it reconnects, so a Redis
 * that restarted empty is DOWN only until then). A failure is DOWN with the exception's message as
 * {@code error}.
 */
public class StowageHealthIndicator extends AbstractHealthIndicator {
  private final Stowage stowage;
  private final Supplier<? extends Iterable<StowageCacheManager>> managers;

  /**
   * The health of {@code stowage} and of the dictionaries of the caches {@code managers} gives at
   * each check.
   */
  public StowageHealthIndicator(
      Stowage stowage, Supplier<? extends Iterable<StowageCacheManager>> managers) {
    super("Stowage health check failed");
    this.stowage = requireNonNull(stowage, "stowage");
    this.managers = requireNonNull(managers, "managers");
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder.withDetail("address", stowage.address());
    stowage.ping();
    Inspector inspector = stowage.inspector();
    Map<String, String> inUse = new TreeMap<>();
    List<String> missing = new ArrayList<>();
    Set<Long> checked = new HashSet<>();
    for (StowageCacheManager manager : managers.get()) {
      for (StowageCache cache : manager.caches()) {
        OptionalLong dictionary = cache.getNativeCache().compression().dictionaryId();
        if (dictionary.isEmpty()) {
          continue;
        }
        long id = dictionary.getAsLong();
        inUse.put(cache.getName(), Inspector.hexId(id));
        if (checked.add(id) && !inspector.isDictionaryStored(id)) {
          missing.add(Inspector.Keys.dictionary(id));
        }
      }
    }
    builder.withDetail("dictionaries", inUse);
    if (missing.isEmpty()) {
      builder.up();
    } else {
      builder.down().withDetail("missingDictionaries", missing);
    }
  }
}
