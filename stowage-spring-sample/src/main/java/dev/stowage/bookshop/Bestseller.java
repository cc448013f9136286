package dev.stowage.bookshop;

/** A book and the copies of it sold. */
public record Bestseller(Book book, long copiesSold) {}
