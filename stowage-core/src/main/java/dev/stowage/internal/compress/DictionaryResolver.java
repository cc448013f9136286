package dev.stowage.internal.compress;

import static java.util.Objects.requireNonNull;

import dev.stowage.DictionaryNotFoundException;
import dev.stowage.internal.store.DictionaryStore;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds the zstd dictionary that a value's envelope names. {@link DictionaryStore} resolves from
 * Redis; {@link #of(ZstdDictionary...)} from a fixed set. Implementations must be thread-safe and
 * should be fast after the first call for an id, since readers call them on their decoding path
 * until the dictionary is cached.
 */
@FunctionalInterface
public interface DictionaryResolver {

  /**
   * The dictionary whose {@link ZstdDictionary#id()} is {@code id}.
   *
   * @throws DictionaryNotFoundException if there is none
   */
  ZstdDictionary resolve(long id);

  /** A resolver over a fixed set of dictionaries. */
  static DictionaryResolver of(ZstdDictionary... dictionaries) {
    Map<Long, ZstdDictionary> byId = new HashMap<>();
    for (ZstdDictionary dictionary : dictionaries) {
      requireNonNull(dictionary, "dictionary");
      byId.put(dictionary.id(), dictionary);
    }
    Map<Long, ZstdDictionary> fixed = Map.copyOf(byId);
    return id -> {
      ZstdDictionary dictionary = fixed.get(id);
      if (dictionary == null) {
        throw new DictionaryNotFoundException(id);
      }
      return dictionary;
    };
  }

  /** A resolver that asks this one first and {@code fallback} when this one finds nothing. */
  default DictionaryResolver orElse(DictionaryResolver fallback) {
    requireNonNull(fallback, "fallback");
    return id -> {
      try {
        return resolve(id);
      } catch (DictionaryNotFoundException e) {
        return fallback.resolve(id);
      }
    };
  }
}
