package dev.stowage.internal.redis;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Logs a value that cannot be decoded once per key, at {@code WARNING} on the {@code
 * dev.stowage.cache} logger. The set of keys already logged is bounded: when it fills up it is
 * emptied, so memory stays small and a key is logged again at most once per {@value #MAX_KEYS}
 * other keys.
 */
public final class DecodeFailureLog {
  static final int MAX_KEYS = 1024;
  private static final System.Logger LOG = System.getLogger("dev.stowage.cache");

  private final String owner;
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  public DecodeFailureLog(String owner) {
    this.owner = owner;
  }

  public void report(String key, @Nullable String reason) {
    if (logged.size() >= MAX_KEYS) {
      logged.clear();
    }
    if (logged.add(key)) {
      LOG.log(
          Level.WARNING,
          owner
              + ": "
              + key
              + " cannot be decoded and reads as a miss: "
              + reason
              + " (later failures of this key are counted in stats, not logged)");
    }
  }

  /** Whether {@code key} has been logged since the set was last emptied. */
  boolean hasLogged(String key) {
    return logged.contains(key);
  }
}
