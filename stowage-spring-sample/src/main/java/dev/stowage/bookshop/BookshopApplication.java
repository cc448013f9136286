package dev.stowage.bookshop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The book shop: Redis from {@code spring.data.redis.*}, PostgreSQL from {@code
 * spring.datasource.*}, the caches' settings under {@code stowage.caches} (see application.yml).
 */
@SpringBootApplication
public class BookshopApplication {
  public static void main(String[] args) {
    SpringApplication.run(BookshopApplication.class, args);
  }
}
