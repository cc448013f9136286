package dev.stowage.board;

import dev.stowage.StowageKeys;

/**
 * The Redis keys of the board service. Stowage mode keeps its posts in a core {@link
 * dev.stowage.Feed} under {@value #FEED} (the index {@value #FEED} and the buckets {@code
 * board:b:<n>}, see {@link dev.stowage.FeedLayout}); the seed modes keep theirs in a sorted set
 * under the same key, so each needs a Redis of its own. Every mode counts its scores in the same
 * hash field, {@value #COUNTER}/{@value #COUNTER_FIELD}, as the seed did. The keys under
 * {@code stowage:} are built from {@link StowageKeys}, where core names its own.
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
  public static final String COMPLETE_PREFIX = StowageKeys.NAMESPACE + "board:";
  /** The entry of that cache which is {@link #COMPLETE}. */
  public static final String COMPLETE_ENTRY = "complete";
  /**
   * The hash in which core records the zstd dictionary that stowage mode's feed learned from its
   * first values (by default, {@code --compression zstd-dict}), under the field {@code json}:
   * {@code stowage:learned:feed:board}.
   */
  public static final String LEARNED_DICTIONARY = StowageKeys.learnedByFeed(FEED);

  private BoardKeys() {}
}
