package dev.stowage.internal.cache;

import static java.util.Objects.requireNonNull;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import dev.stowage.internal.Futures;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.redis.CacheStorage;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A cache engine's loads: a value missing from the near cache and Redis is loaded once in this
 * process ({@link SingleFlight}) and, with the distributed lock, once across processes ({@link
 * LoadLock}), then stored, or the absent marker is stored when the loader found none and absent
 * keys are cached.
 *
 * <p>A load reads Redis again before calling the loader, because a caller whose read missed just
 * before another load stored the value can arrive after that load has finished.
 */
final class CacheLoads<K, V> {
  private static final System.Logger LOG = System.getLogger("dev.stowage.cache");

  private final CacheEngine<K, V> engine;
  private final CacheStorage<K, V> storage;
  private final String owner;
  private final LoadCounters counters = new LoadCounters();
  private final SingleFlight<V> flights = new SingleFlight<>();
  private final @Nullable LoadLock lock;

  CacheLoads(CacheEngine<K, V> engine) {
    this.engine = engine;
    this.storage = engine.storage;
    this.owner = engine.owner;
    this.lock =
        engine.settings.loadLock() == null
            ? null
            : new LoadLock(engine.session, engine.settings.loadLock(), owner);
  }

  LoadCounters counters() {
    return counters;
  }

  /** A loader's call, started on the executor: its value when it completes, counted and timed. */
  @FunctionalInterface
  private interface Load<K, V> {
    CompletableFuture<V> start(K key, Executor executor);
  }

  CompletableFuture<V> getOrLoad(
      K key, Function<? super K, ? extends V> loader, CacheEngine.Threads threads) {
    requireNonNull(loader, "loader");
    return load(
        key,
        (k, executor) ->
            CompletableFuture.supplyAsync(() -> counters.timed(() -> loader.apply(k)), executor),
        threads);
  }

  CompletableFuture<V> getOrLoadAsync(
      K key,
      Function<? super K, ? extends CompletionStage<? extends V>> loader,
      CacheEngine.Threads threads) {
    requireNonNull(loader, "loader");
    return load(
        key,
        (k, executor) ->
            counters.timedAsync(
                () -> loader.apply(k),
                executor,
                () ->
                    owner
                        + ": the loader of "
                        + engine.keyText(k)
                        + " returned null instead of a stage"),
        threads);
  }

  /**
   * The value of {@code key}: from the near cache or Redis, or else loaded once in this process
   * (and, with the distributed lock, once across processes) and stored.
   */
  @SuppressWarnings("ReferenceEquality") // a sentinel value
  private CompletableFuture<V> load(K key, Load<K, V> load, CacheEngine.Threads threads) {
    String entryText = engine.entryText(key);
    V kept = engine.nearEntry(entryText);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    String keyText = engine.keyTextOfEntry(entryText);
    long stamp = engine.stamp(keyText);
    CacheStorage.ReadTtl ttl = engine.readTtl();
    return engine.counted(
        Futures.handleComposeAsync(
            engine.fetch(keyText, ttl),
            (bytes, failure) -> {
              if (failure != null) {
                if (!engine.loadsDespite(failure)) {
                  return CompletableFuture.<V>failedFuture(failure);
                }
                engine.countFailure(failure);
                return flights.load(keyText, () -> load.start(key, threads.loads())).copy();
              }
              Object value = engine.read(keyText, bytes);
              if (value == CacheEngine.ABSENT) {
                return CompletableFuture.<V>completedFuture(null);
              }
              if (value != null) {
                if (ttl != null && bytes != null) {
                  engine.keep(keyText, stamp, engine.cast(value), bytes, ttl.sentAt, ttl.millis);
                }
                return CompletableFuture.completedFuture(engine.cast(value));
              }
              return flights
                  .load(
                      keyText,
                      () ->
                          lock == null
                              ? readOrLoad(key, keyText, load, threads)
                              : lock.run(
                                  keyText,
                                  () -> readOrLoad(key, keyText, load, threads),
                                  () -> lookUp(keyText, threads)))
                  .copy();
            },
            threads.work()));
  }

  /**
   * Reads a key again for a load, uncounted: the value, null for a key cached as absent, or
   * nothing.
   */
  private CompletableFuture<LoadLock.Found<V>> lookUp(String keyText, CacheEngine.Threads threads) {
    return engine
        .fetch(keyText, null)
        .thenApplyAsync(
            bytes -> {
              if (bytes != null && Envelope.isAbsentMarker(bytes)) {
                return LoadLock.Found.value(null);
              }
              V present = engine.decodeQuietly(keyText, bytes);
              return present != null ? LoadLock.Found.value(present) : LoadLock.Found.nothing();
            },
            threads.work());
  }

  /** Reads the key again; if it is still missing, calls the loader and stores its value. */
  private CompletableFuture<V> readOrLoad(
      K key, String keyText, Load<K, V> load, CacheEngine.Threads threads) {
    return Futures.handleCompose(
        lookUp(keyText, threads),
        (found, failure) -> {
          if (failure != null) {
            if (!engine.loadsDespite(failure)) {
              return CompletableFuture.<V>failedFuture(failure);
            }
            engine.countFailure(failure);
            return load.start(key, threads.loads());
          }
          if (found.found()) {
            return CompletableFuture.completedFuture(found.value());
          }
          return load.start(key, threads.loads())
              .thenCompose(value -> storeLoaded(keyText, value).thenApply(stored -> value));
        });
  }

  /**
   * Stores a loaded value, or the absent marker when the loader found none and absent keys are
   * cached. Redis being unavailable is logged, not failed: the caller has its value.
   */
  private CompletableFuture<Void> storeLoaded(String keyText, @Nullable V value) {
    if (value == null && engine.settings.absentTtl() == null) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> stored;
    try {
      stored =
          value != null
              ? storage.write(keyText, storage.encode(keyText, value))
              : storage.writeAbsent(List.of(keyText));
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return engine
        .droppingNear(stored, () -> List.of(keyText))
        .exceptionallyCompose(
            failure -> notStored(failure, "loaded " + keyText + " but could not store it"));
  }

  /** Logs and counts a store that Redis being unavailable stopped; fails with any other failure. */
  private CompletableFuture<Void> notStored(Throwable failure, String what) {
    if (!(Futures.unwrap(failure) instanceof CacheUnavailableException unavailable)) {
      return CompletableFuture.failedFuture(failure);
    }
    engine.countFailure(unavailable);
    LOG.log(Level.WARNING, owner + ": " + what + ": " + unavailable.getMessage());
    return CompletableFuture.completedFuture(null);
  }

  CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      CacheEngine.Threads threads) {
    CacheEngine<K, V>.KeyBatch batch = engine.new KeyBatch(keys);
    requireNonNull(loader, "loader");
    return engine.counted(
        engine
            .readAll(batch, threads)
            .thenCompose(
                read -> {
                  if (read.found().size() + read.absent().size() == batch.size()) {
                    return CompletableFuture.completedFuture(read.found());
                  }
                  return loadAll(batch, read, loader, threads)
                      .thenApply(loaded -> engine.merge(batch, read.found(), loaded));
                }));
  }

  /**
   * Loads the keys a bulk read missed: those no other load has in flight in one loader call, and
   * waits for the others' loads.
   */
  private CompletableFuture<Map<K, V>> loadAll(
      CacheEngine<K, V>.KeyBatch batch,
      CacheEngine.BulkRead<K, V> read,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      CacheEngine.Threads threads) {
    Map<String, K> wanted = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      K key = batch.keys.get(i);
      if (!read.found().containsKey(key) && !read.absent().contains(key)) {
        wanted.put(batch.texts.get(i), key);
      }
    }
    Map<String, CompletableFuture<V>> led = new LinkedHashMap<>();
    Map<String, CompletableFuture<V>> waits = flights.claim(wanted.keySet(), led);
    if (!led.isEmpty()) {
      List<K> mine = new ArrayList<>();
      led.keySet().forEach(text -> mine.add(wanted.get(text)));
      CompletableFuture<Map<K, V>> loading;
      try {
        loading = bulkLoad(mine, loader, threads);
      } catch (RuntimeException | Error e) {
        loading = CompletableFuture.failedFuture(e);
      }
      Futures.whenDone(
          loading,
          (loaded, failure) ->
              led.forEach(
                  (text, future) ->
                      flights.settle(
                          text,
                          future,
                          failure == null ? loaded.get(wanted.get(text)) : null,
                          failure)));
    }
    return CompletableFuture.allOf(waits.values().toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              Map<K, V> loaded = new LinkedHashMap<>();
              waits.forEach(
                  (text, future) -> {
                    V value = future.join();
                    if (value != null) {
                      loaded.put(wanted.get(text), value);
                    }
                  });
              return loaded;
            });
  }

  /**
   * Reads the keys again, loads those still missing in one loader call, and stores what it returns.
   */
  private CompletableFuture<Map<K, V>> bulkLoad(
      List<K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      CacheEngine.Threads threads) {
    CacheEngine<K, V>.KeyBatch again = engine.new KeyBatch(keys);
    return engine
        .fetchAll(again.texts, null)
        .thenApplyAsync(
            values -> {
              Map<K, V> present = new LinkedHashMap<>();
              Set<K> missing = new LinkedHashSet<>();
              for (int i = 0; i < values.length; i++) {
                K key = again.keys.get(i);
                boolean absent = values[i] != null && Envelope.isAbsentMarker(values[i]);
                V value = absent ? null : engine.decodeQuietly(again.texts.get(i), values[i]);
                if (value != null) {
                  present.put(key, value);
                } else if (!absent) {
                  missing.add(key);
                }
              }
              return new CacheEngine.BulkRead<>(present, missing);
            },
            threads.work())
        .thenCompose(
            reread -> {
              Set<K> missing = reread.absent();
              if (missing.isEmpty()) {
                return CompletableFuture.completedFuture(reread.found());
              }
              return CompletableFuture.supplyAsync(
                      () ->
                          counters.timed(
                              () -> loaded(loader.apply(Collections.unmodifiableSet(missing)))),
                      threads.loads())
                  .thenCompose(loaded -> storeBulkLoaded(missing, loaded))
                  .thenApply(
                      stored -> {
                        Map<K, V> all = new LinkedHashMap<>(reread.found());
                        all.putAll(stored);
                        return all;
                      });
            });
  }

  private Map<? extends K, ? extends V> loaded(Map<? extends K, ? extends V> loaded) {
    if (loaded == null) {
      throw new NullPointerException(owner + ": the bulk loader returned null instead of a map");
    }
    return loaded;
  }

  /**
   * Stores what a bulk loader returned for {@code missing}, and absent markers for the rest if
   * cached.
   */
  private CompletableFuture<Map<K, V>> storeBulkLoaded(
      Set<K> missing, Map<? extends K, ? extends V> loaded) {
    Map<K, V> toStore = new LinkedHashMap<>();
    List<String> none = new ArrayList<>();
    for (K key : missing) {
      V value = loaded.get(key);
      if (value != null) {
        toStore.put(key, value);
      } else if (engine.settings.absentTtl() != null) {
        none.add(engine.keyText(key));
      }
    }
    CacheStorage.Prepared prepared;
    try {
      prepared = storage.prepare(toStore);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> stored =
        storage
            .send(prepared)
            .thenCompose(
                done ->
                    none.isEmpty()
                        ? CompletableFuture.completedFuture(null)
                        : storage.writeAbsent(none));
    List<String> written = new ArrayList<>(prepared.texts());
    written.addAll(none);
    return engine
        .droppingNear(stored, () -> written)
        .exceptionallyCompose(
            failure ->
                notStored(failure, "loaded " + toStore.size() + " keys but could not store them"))
        .thenApply(done -> toStore);
  }
}
