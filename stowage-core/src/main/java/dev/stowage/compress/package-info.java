/**
 * Compression of stored values: {@link dev.stowage.compress.Compression} (none, lz4, zstd, zstd
 * with a trained dictionary, which caches and feeds keep in Redis). The libraries are optional
 * dependencies: lz4 needs {@code at.yawk.lz4:lz4-java}, zstd needs {@code
 * com.github.luben:zstd-jni}. Parameters and return values are never {@code null} unless a method
 * says otherwise.
 */
@NullMarked
package dev.stowage.compress;

import org.jspecify.annotations.NullMarked;
