/**
 * The stored format, as bytes and names only: the envelope's header, codec and compression ids,
 * feed entries and Stowage's key names. It depends on no other internal package; the codecs,
 * compressors, stores and {@code internal.envelope} build on it. This package is part of the
 * internal API and may change without notice; tools read stored values through {@link
 * dev.stowage.Inspector}.
 */
@NullMarked
package dev.stowage.internal.format;

import org.jspecify.annotations.NullMarked;
