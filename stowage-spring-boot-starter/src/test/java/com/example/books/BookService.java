package com.example.books;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

@Service
public class BookService {
  private final AtomicInteger lookups = new AtomicInteger();

  @Cacheable("books")
  public Book find(String isbn) {
    lookups.incrementAndGet(); // the slow lookup, in a real application
    return new Book(isbn, "The book " + isbn);
  }

  public int lookups() {
    return lookups.get();
  }
}
