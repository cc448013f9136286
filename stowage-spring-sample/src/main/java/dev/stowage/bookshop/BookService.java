package dev.stowage.bookshop;

import java.util.Optional;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.Caching;
import org.springframework.stereotype.Service;

/**
 * The book shop's reads and writes, cached through Stowage in two caches, set up in
 * application.yml: {@code books} (one entry per ISBN, an unknown ISBN cached as absent) and {@code
 * bestsellers} (one entry per list length).
 */
@Service
public class BookService {
  private final BookRepository repository;

  public BookService(BookRepository repository) {
    this.repository = repository;
  }

  /** The book, read from the database once, then from the cache until its entry expires. */
  @Cacheable("books")
  public Optional<Book> find(String isbn) {
    return repository.findByIsbn(isbn);
  }

  /** Saves the book and puts it in the cache, so that the next {@link #find} reads the new one. */
  @CachePut(cacheNames = "books", key = "#book.isbn()")
  public Book save(Book book) {
    repository.save(book);
    return book;
  }

  /** Deletes the book and its sales, and the cache entries they are in. */
  @Caching(
      evict = {@CacheEvict("books"), @CacheEvict(cacheNames = "bestsellers", allEntries = true)})
  public boolean delete(String isbn) {
    return repository.delete(isbn);
  }

  /** Records a sale; every bestseller list may change, so all of them leave the cache. */
  @CacheEvict(cacheNames = "bestsellers", allEntries = true)
  public boolean recordSale(String isbn, Sale sale) {
    return repository.recordSale(isbn, sale.copies());
  }

  /**
   * The {@code limit} best sellers. The query is the expensive one: concurrent callers of a list
   * that is not cached share one query ({@code sync = true}) instead of each sending their own.
   */
  @Cacheable(cacheNames = "bestsellers", sync = true)
  public Bestsellers bestsellers(int limit) {
    return repository.bestsellers(limit);
  }
}
