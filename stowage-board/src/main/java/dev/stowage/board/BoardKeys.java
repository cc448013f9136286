package dev.stowage.board;

import dev.stowage.Inspector;

/**
 * The Redis keys of the board service. Stowage mode keeps its posts in a core {@link
 * dev.stowage.Feed} under {@value #FEED} (the index {@value #FEED} and the buckets {@code
 * board:b:<n>}, see {@link Inspector#feedEntries}); the seed modes keep theirs in a sorted set
 * under the same key, so each needs a Redis of its own. Every mode counts its scores in the same
 * hash field, {@value #COUNTER}/{@value #COUNTER_FIELD}, as the seed did. The keys under {@code
 * stowage:} are built from {@link Inspector.Keys}, where core names its own.
 *
 * <p>On a Redis Cluster (stowage mode only) every key of the feed carries the hash tag {@code
 * {board}}, so that the feed's scripts touch one slot and the mark of completeness is read on the
 * same master as the page after it: the feed {@value #CLUSTER_FEED}, its buckets {@code
 * {board}:b:<n>}, the counter {@value #CLUSTER_COUNTER}/{@value #COUNTER_FIELD} and the mark
 * {@value #CLUSTER_COMPLETE}.
 */
public final class BoardKeys {
  /** The feed's key in stowage mode, the sorted set's in the seed modes. */
  public static final String FEED = "board";

  /** The hash that holds the score counter, as in the seed. */
  public static final String COUNTER = "counter";

  /** The counter's field, as in the seed. */
  public static final String COUNTER_FIELD = "board";

  /**
   * Present while stowage mode's feed holds every post of the database: the entry of a core {@link
   * dev.stowage.RedisCache} (prefix {@value #COMPLETE_PREFIX}, key {@value #COMPLETE_ENTRY}) whose
   * value is the highest score the last refill stored.
   */
  public static final String COMPLETE = BoardKeys.COMPLETE_PREFIX + BoardKeys.COMPLETE_ENTRY;

  /** The key prefix of the cache that holds {@link #COMPLETE}. */
  public static final String COMPLETE_PREFIX = Inspector.Keys.NAMESPACE + "board:";

  /** The entry of that cache which is {@link #COMPLETE}. */
  public static final String COMPLETE_ENTRY = "complete";

  /** The feed's key on a Redis Cluster: the hash tag alone, so its buckets share its slot. */
  public static final String CLUSTER_FEED = "{" + FEED + "}";

  /** The hash that holds the score counter on a Redis Cluster, in the feed's slot. */
  public static final String CLUSTER_COUNTER = CLUSTER_FEED + ":counter";

  /** The key prefix of the cache that holds the mark on a Redis Cluster, in the feed's slot. */
  public static final String CLUSTER_COMPLETE_PREFIX = COMPLETE_PREFIX + CLUSTER_FEED + ":";

  /** {@link #COMPLETE} on a Redis Cluster: {@code stowage:board:{board}:complete}. */
  public static final String CLUSTER_COMPLETE = CLUSTER_COMPLETE_PREFIX + COMPLETE_ENTRY;

  /**
   * The hash in which core records the zstd dictionary that stowage mode's feed learned from its
   * first values (by default, {@code --compression zstd-dict}), under the field {@code json}:
   * {@code stowage:learned:feed:board}.
   */
  public static final String LEARNED_DICTIONARY = Inspector.Keys.learnedByFeed(FEED);

  private BoardKeys() {}
}
