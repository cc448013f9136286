package dev.stowage.bookshop;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The HTTP API: {@code GET}, {@code PUT} and {@code DELETE /books/{isbn}}, {@code POST
 * /books/{isbn}/sales} and {@code GET /bestsellers?limit=n}.
 */
@RestController
public class BookController {
  private static final int MAX_LIMIT = 100;

  private final BookService books;

  public BookController(BookService books) {
    this.books = books;
  }

  @GetMapping("/books/{isbn}")
  public ResponseEntity<Book> find(@PathVariable String isbn) {
    return ResponseEntity.of(books.find(isbn));
  }

  @PutMapping("/books/{isbn}")
  public Book save(@PathVariable String isbn, @RequestBody Book book) {
    if (!book.isbn().equals(isbn)) {
      throw new ResponseStatusException(
          HttpStatus.BAD_REQUEST,
          "the book's ISBN " + book.isbn() + " is not the ISBN in the path, " + isbn);
    }
    return books.save(book);
  }

  @DeleteMapping("/books/{isbn}")
  public ResponseEntity<Void> delete(@PathVariable String isbn) {
    return books.delete(isbn)
        ? ResponseEntity.noContent().build()
        : ResponseEntity.notFound().build();
  }

  @PostMapping("/books/{isbn}/sales")
  public ResponseEntity<Void> recordSale(@PathVariable String isbn, @RequestBody Sale sale) {
    if (sale.copies() < 1) {
      throw new ResponseStatusException(
          HttpStatus.BAD_REQUEST, "a sale is of 1 copy or more, not " + sale.copies());
    }
    return books.recordSale(isbn, sale)
        ? ResponseEntity.noContent().build()
        : ResponseEntity.notFound().build();
  }

  @GetMapping("/bestsellers")
  public Bestsellers bestsellers(@RequestParam(defaultValue = "10") int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new ResponseStatusException(
          HttpStatus.BAD_REQUEST, "limit is from 1 to " + MAX_LIMIT + ", not " + limit);
    }
    return books.bestsellers(limit);
  }
}
