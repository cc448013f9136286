package dev.stowage.board;

/**
 * A page of posts as a client asks for it, checked here for the HTTP API and the TCP protocol
 * alike: {@code page} from 1 to {@value BoardLimits#MAX_PAGE}, {@code size} from 1 to {@value
 * BoardLimits#MAX_PAGE_SIZE}.
 *
 * @param page the page, from 1
 * @param size the posts per page
 */
public record PageRequest(int page, int size) {
  /**
   * Checks the page.
   *
   * @throws BoardRequestException 400 naming the value out of range
   */
  public PageRequest {
    check("page", page, BoardLimits.MAX_PAGE);
    check("size", size, BoardLimits.MAX_PAGE_SIZE);
  }

  /**
   * The page {@code page} of {@code size} posts, as numbers read from a request.
   *
   * @throws BoardRequestException 400 naming the value out of range ({@code "page must be from 1 to
   *     1000000, got 0"})
   */
  public static PageRequest of(long page, long size) {
    check("page", page, BoardLimits.MAX_PAGE);
    check("size", size, BoardLimits.MAX_PAGE_SIZE);
    return new PageRequest((int) page, (int) size);
  }

  /** The posts before this page. */
  public long offset() {
    return (long) (page - 1) * size;
  }

  private static void check(String name, long value, int max) {
    if (value < 1 || value > max) {
      throw new BoardRequestException(400, name + " must be from 1 to " + max + ", got " + value);
    }
  }
}
