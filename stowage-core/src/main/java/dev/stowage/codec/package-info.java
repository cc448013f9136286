/**
 * The built-in codecs, created through {@link dev.stowage.codec.Codecs}. Each codec's library is an
 * optional dependency of Stowage core; a factory whose library is missing throws {@link
 * dev.stowage.MissingLibraryException} naming the Maven coordinates to add. Parameters and return
 * values are never {@code null} unless a method says otherwise.
 */
@NullMarked
package dev.stowage.codec;

import org.jspecify.annotations.NullMarked;
