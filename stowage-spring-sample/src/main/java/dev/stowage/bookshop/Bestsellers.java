package dev.stowage.bookshop;

import java.util.List;

/**
 * The books that sold the most copies, first the one that sold most. A record around the list, so
 * that the cache, which has no configured type, reads it back as this class.
 */
public record Bestsellers(List<Bestseller> ranking) {}
