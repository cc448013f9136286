package dev.stowage.bookshop;

/** A sale of some copies of a book, as posted to {@code /books/{isbn}/sales}. */
public record Sale(int copies) {}
