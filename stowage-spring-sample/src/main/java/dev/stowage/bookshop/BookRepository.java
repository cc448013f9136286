package dev.stowage.bookshop;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The books and their sales in PostgreSQL (schema.sql), through Spring's {@link JdbcClient}. It
 * counts the queries it sends, so that the sample's test can tell the database's work from the
 * cache's.
 */
@Repository
public class BookRepository {
  private final JdbcClient jdbc;
  private final AtomicLong bookQueries = new AtomicLong();
  private final AtomicLong bestsellerQueries = new AtomicLong();

  public BookRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public Optional<Book> findByIsbn(String isbn) {
    bookQueries.incrementAndGet();
    return jdbc.sql("SELECT isbn, title, author, price_in_cents FROM book WHERE isbn = ?")
        .param(isbn)
        .query(Book.class)
        .optional();
  }

  /** Inserts the book, or replaces the one with its ISBN. */
  public void save(Book book) {
    jdbc.sql(
            """
            INSERT INTO book (isbn, title, author, price_in_cents) VALUES (?, ?, ?, ?)
            ON CONFLICT (isbn) DO UPDATE
            SET title = excluded.title, author = excluded.author, price_in_cents = excluded.price_in_cents
            """)
        .params(book.isbn(), book.title(), book.author(), book.priceInCents())
        .update();
  }

  /** Deletes the book and its sales; false if there was no such book. */
  public boolean delete(String isbn) {
    return jdbc.sql("DELETE FROM book WHERE isbn = ?").param(isbn).update() > 0;
  }

  /** Records a sale; false if there is no such book. */
  public boolean recordSale(String isbn, int copies) {
    return jdbc.sql("INSERT INTO sale (isbn, copies) SELECT isbn, ? FROM book WHERE isbn = ?")
            .params(copies, isbn)
            .update()
        > 0;
  }

  /** The {@code limit} books that sold the most copies, ties in ISBN order. */
  public Bestsellers bestsellers(int limit) {
    bestsellerQueries.incrementAndGet();
    return new Bestsellers(
        jdbc.sql(
                """
            SELECT b.isbn, b.title, b.author, b.price_in_cents, sum(s.copies) AS copies_sold
            FROM sale s JOIN book b ON b.isbn = s.isbn
            GROUP BY b.isbn
            ORDER BY copies_sold DESC, b.isbn
            LIMIT ?
            """)
            .param(limit)
            .query(
                (row, number) ->
                    new Bestseller(
                        new Book(
                            row.getString("isbn"),
                            row.getString("title"),
                            row.getString("author"),
                            row.getLong("price_in_cents")),
                        row.getLong("copies_sold")))
            .list());
  }

  /** The book queries ({@link #findByIsbn}) sent so far. */
  public long bookQueries() {
    return bookQueries.get();
  }

  /** The bestseller queries ({@link #bestsellers}) sent so far. */
  public long bestsellerQueries() {
    return bestsellerQueries.get();
  }
}
