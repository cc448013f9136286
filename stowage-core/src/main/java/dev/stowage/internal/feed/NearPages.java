package dev.stowage.internal.feed;

import dev.stowage.Feed.Entry;
import dev.stowage.internal.feed.PageDecoder.Decoded;
import dev.stowage.internal.nearcache.Tracking;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A feed's pages kept in the near cache while Redis says the feed has not changed, under the feed's
 * key (so that the broadcast prefix covers them); does nothing without a near cache. Thread-safe.
 */
final class NearPages<V> {
  private final String feedKey;
  private final Tracking.@Nullable Reader near;

  NearPages(String feedKey, Tracking.@Nullable Reader near) {
    this.feedKey = feedKey;
    this.near = near;
  }

  /** The near cache's key of a page; null without a near cache. */
  @Nullable String pageKey(int page, int size) {
    return near == null ? null : feedKey + "\u0000page:" + page + ":" + size;
  }

  // pageKey is null only when near is, which each of these checks first.
  @SuppressWarnings({"unchecked", "NullAway"})
  @Nullable List<Entry<V>> kept(@Nullable String pageKey) {
    return near == null ? null : (List<Entry<V>>) near.store().get(pageKey);
  }

  @SuppressWarnings("NullAway")
  long stamp(@Nullable String pageKey) {
    return near == null ? -1 : near.store().stamp(pageKey);
  }

  /**
   * Keeps a page just read, unless the feed changed since {@code stamp}, or one of its members
   * could not be decoded; returns it, unmodifiable.
   */
  @SuppressWarnings("NullAway") // as kept
  List<Entry<V>> keep(@Nullable String pageKey, long stamp, Decoded<V> decoded) {
    List<Entry<V>> page = List.copyOf(decoded.entries());
    if (near != null && page.size() == decoded.expected()) {
      near.store()
          .keep(pageKey, stamp, page, (int) Math.min(Integer.MAX_VALUE, decoded.storedBytes()));
    }
    return page;
  }

  /** After a write through this feed: no kept page may be older than it. */
  <T> CompletableFuture<T> dropAfter(CompletableFuture<T> write) {
    Tracking.Reader reader = near;
    return reader == null
        ? write
        : write.whenComplete((done, failure) -> reader.store().invalidateAll());
  }

  /** Near cache hits and misses: {@code [hits, misses]}, zeros without a near cache. */
  long[] counts() {
    return near == null ? new long[2] : new long[] {near.store().hits(), near.store().misses()};
  }
}
