/**
 * A book shop over PostgreSQL whose {@link dev.stowage.bookshop.BookService} caches through Stowage
 * with Spring's cache annotations; the Stowage starter is its only Stowage dependency.
 */
@NullMarked
package dev.stowage.bookshop;

import org.jspecify.annotations.NullMarked;
