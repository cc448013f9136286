package dev.stowage.bench.spring;

import dev.stowage.samples.BoardRecord;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.cache.annotation.Cacheable;

/**
 * The bench's {@code @Cacheable} method, the same bean in every row: {@link #find} answers a board
 * record from a list held in memory (the database of an application, made as cheap as possible so
 * that what is measured is the cache), and counts how often it ran, so that the bench knows which
 * calls missed. Public and not final: Spring proxies it.
 */
public class BoardLookup {

  private final List<BoardRecord> records;
  private final LongAdder calls = new LongAdder();

  /** A lookup over {@code records}: record {@code i} is the answer for id {@code i}. */
  public BoardLookup(List<BoardRecord> records) {
    this.records = List.copyOf(records);
  }

  /**
   * The board record with this id, through the cache {@value SpringCacheBench#CACHE}: the key is
   * the id, as Spring's default key generator makes it.
   *
   * @throws IndexOutOfBoundsException if no record has this id
   */
  @Cacheable(SpringCacheBench.CACHE)
  public BoardRecord find(long id) {
    calls.increment();
    return records.get(Math.toIntExact(id));
  }

  /** How many times {@link #find} ran: the calls the cache missed. */
  public long calls() {
    return calls.sum();
  }
}
