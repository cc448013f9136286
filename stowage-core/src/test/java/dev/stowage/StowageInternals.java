package dev.stowage;

import dev.stowage.internal.envelope.DecompressionBudget;
import dev.stowage.internal.store.DictionaryStore;

/** What core's tests read of a Stowage that its public API does not show. */
public final class StowageInternals {
  private StowageInternals() {}

  /** The store of zstd dictionaries the Stowage's caches and feeds read through. */
  public static DictionaryStore dictionaries(Stowage stowage) {
    return stowage.dictionaries();
  }

  /** The budget the Stowage's caches and feeds decompress within. */
  public static DecompressionBudget decompressionBudget(Stowage stowage) {
    return stowage.decompressionBudget();
  }
}
