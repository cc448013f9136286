package dev.stowage.bookshop;

/** A book in the catalogue, a row of the {@code book} table. */
public record Book(String isbn, String title, String author, long priceInCents) {}
