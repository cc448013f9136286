/**
 * The built-in codecs behind {@link dev.stowage.codec.Codecs}, one class per format, each touching
 * its optional library only once {@code Codecs} has checked that the library is present. This
 * package is part of the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.codec;

import org.jspecify.annotations.NullMarked;
