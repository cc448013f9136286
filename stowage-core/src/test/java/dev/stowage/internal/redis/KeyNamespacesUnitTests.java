package dev.stowage.internal.redis;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.internal.redis.KeyNamespaces.Namespace;
import org.junit.jupiter.api.Test;

/**
 * Which key namespaces overlap: prefixes that start one another, keys under a prefix, equal keys.
 */
class KeyNamespacesUnitTests {
  private static Namespace cache(String name, String prefix) {
    return Namespace.ofCache(name, prefix, "CacheLayout.keyPerValue()", false);
  }

  private static Namespace feed(String name, String key, String counter) {
    return Namespace.ofFeed(name, key, counter, name);
  }

  private static void refused(Namespace first, Namespace second) {
    KeyNamespaces namespaces = new KeyNamespaces();
    namespaces.reserve(first).heldBy(first);
    assertThatThrownBy(() -> namespaces.reserve(second))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(second + " overlaps " + first + " of the same Stowage");
    KeyNamespaces reversed = new KeyNamespaces();
    reversed.reserve(second).heldBy(second);
    assertThatThrownBy(() -> reversed.reserve(first))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(first + " overlaps " + second + " of the same Stowage");
  }

  private static void allowed(Namespace first, Namespace second) {
    KeyNamespaces namespaces = new KeyNamespaces();
    namespaces.reserve(first).heldBy(first);
    assertThatCode(() -> namespaces.reserve(second)).doesNotThrowAnyException();
  }

  @Test
  void prefixesOverlapWhenOneStartsTheOther() {
    refused(cache("items", "items:"), cache("sub", "items:x:"));
    refused(cache("a", "a"), cache("b", "ab:"));
    refused(cache("items", "items:"), cache("twin", "items:"));
    allowed(cache("books", "books:"), cache("bookshelves", "bookshelves:"));
    allowed(cache("items", "items:"), cache("items", "items:"));
  }

  @Test
  void aPackedCacheIsAnotherCacheThanAKeyPerValueOneUnderTheSamePrefix() {
    refused(
        cache("items", "items:"),
        Namespace.ofCache("items", "items:", "CacheLayout.packedBuckets(4)", true));
    refused(
        Namespace.ofCache("items", "items:", "CacheLayout.packedBuckets(4)", true),
        Namespace.ofCache("items", "items:", "CacheLayout.packedBuckets(8)", true));
  }

  @Test
  void aFeedOwnsItsKeyItsBucketsAndItsCounterHash() {
    refused(feed("board", "board", "counter"), cache("boards", "board:"));
    refused(feed("board", "board", "counter"), cache("b", "b"));
    refused(feed("board", "board", "counter"), cache("counters", "count"));
    refused(feed("board", "board", "counter"), feed("copy", "board:s:1", "counter"));
    refused(feed("board", "board", "counter"), feed("counter", "counter", "hits"));
    refused(feed("board", "board", "counter"), feed("board2", "board", "other"));
    allowed(feed("board", "board", "counter"), feed("posts", "posts", "counter"));
    allowed(feed("board", "board", "counter"), feed("board", "board", "counter"));
    allowed(feed("board", "board", "counter"), cache("boards", "boards:"));
    allowed(feed("board", "{board}", "{board}:counter"), cache("boards", "board::"));
  }

  @Test
  void nothingMayOverlapStowagesOwnKeys() {
    for (Namespace namespace :
        new Namespace[] {
          cache("own", "stowage:"),
          cache("own", "s"),
          cache("own", "stowage"),
          cache("own", "stowage:dict:"),
          cache("own", "stowage:dict-info:x:"),
          cache("own", "stowage:sch"),
          cache("own", "stowage:learned:"),
          cache("own", "stowage:lock:users:"),
          feed("own", "stowage:dict:x", "counter"),
          feed("own", "stowage:learned:feed:x", "counter"),
          feed("own", "own", "stowage:lock:counter")
        }) {
      assertThatThrownBy(() -> new KeyNamespaces().reserve(namespace))
          .as(namespace.toString())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(namespace + " overlaps Stowage's own keys (stowage:schema:*");
    }
    for (Namespace namespace :
        new Namespace[] {
          cache("bench", "stowage-bench:"),
          cache("board", "stowage:board:"),
          feed("own", "stowage", "counter")
        }) {
      assertThatCode(() -> new KeyNamespaces().reserve(namespace))
          .as(namespace.toString())
          .doesNotThrowAnyException();
    }
  }
}
