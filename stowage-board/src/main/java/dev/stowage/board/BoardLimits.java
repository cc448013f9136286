package dev.stowage.board;

/**
 * The documented limits of the board API. A request beyond one gets a 4xx whose message names it.
 */
public final class BoardLimits {
  /** Largest body of {@code POST /boards}: 64 KiB (413 beyond). */
  public static final int MAX_POST_BYTES = 64 * 1024;

  /** Largest body of {@code POST /boards/bulk}: 8 MiB (413 beyond). */
  public static final int MAX_BULK_BYTES = 8 * 1024 * 1024;

  /** Most posts in one {@code POST /boards/bulk}: 1,000 (400 beyond). */
  public static final int MAX_BULK_POSTS = 1000;

  /** Longest text field, in characters: 4,000 (400 beyond). */
  public static final int MAX_TEXT_CHARS = 4000;

  /** Largest {@code size} of a page: 500. {@code size} must be at least 1. */
  public static final int MAX_PAGE_SIZE = 500;

  /** Largest {@code page} number: 1,000,000. Pages start at 1. */
  public static final int MAX_PAGE = 1_000_000;

  /** {@code size} when the query does not give one: 25, as the seed's benchmark reads. */
  public static final int DEFAULT_PAGE_SIZE = 25;

  private BoardLimits() {}
}
