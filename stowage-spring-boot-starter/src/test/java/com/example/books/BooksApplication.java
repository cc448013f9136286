package com.example.books;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class BooksApplication {
  public static void main(String[] args) {
    SpringApplication.run(BooksApplication.class, args);
  }
}
