package dev.stowage.internal.cache;

import dev.stowage.internal.Futures;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Single-flight loads within a process: a map from a Redis key to the future of the load in flight.
 * The caller that puts the future in the map leads the load; every other caller for that key
 * meanwhile gets the same future and sees the same value or failure. The entry leaves the map when
 * the load completes, before its future does: a load completes only once its value is stored, so a
 * caller that comes after finds the value in Redis, and a failed load is not kept.
 *
 * @param <V> the type of the values
 */
final class SingleFlight<V> {
  private final ConcurrentHashMap<String, CompletableFuture<V>> inFlight =
      new ConcurrentHashMap<>();

  /**
   * The load of {@code key} in flight, or else a new one that {@code load} starts, this caller
   * leading it. Callers must not complete the future: it is shared ({@code copy()} it first).
   */
  CompletableFuture<V> load(String key, Supplier<CompletableFuture<V>> load) {
    CompletableFuture<V> mine = new CompletableFuture<>();
    CompletableFuture<V> running = inFlight.putIfAbsent(key, mine);
    if (running != null) {
      return running;
    }
    CompletableFuture<V> started;
    try {
      started = load.get();
    } catch (RuntimeException | Error e) {
      started = CompletableFuture.failedFuture(e);
    }
    Futures.whenDone(started, (value, failure) -> settle(key, mine, value, failure));
    return mine;
  }

  /**
   * Claims the keys that no load has in flight, for a bulk load that loads them together: each key
   * maps to a future, which {@code led} also holds for the keys this caller now leads and must
   * {@link #settle}; the others are loads in flight to wait for.
   */
  Map<String, CompletableFuture<V>> claim(
      Collection<String> keys, Map<String, CompletableFuture<V>> led) {
    Map<String, CompletableFuture<V>> all = new LinkedHashMap<>();
    for (String key : keys) {
      CompletableFuture<V> mine = new CompletableFuture<>();
      CompletableFuture<V> running = inFlight.putIfAbsent(key, mine);
      if (running == null) {
        led.put(key, mine);
        all.put(key, mine);
      } else {
        all.put(key, running);
      }
    }
    return all;
  }

  /** Ends a load this caller leads: out of the map first, then completed. */
  void settle(
      String key, CompletableFuture<V> led, @Nullable V value, @Nullable Throwable failure) {
    inFlight.remove(key, led);
    if (failure != null) {
      led.completeExceptionally(failure);
    } else {
      led.complete(value);
    }
  }
}
