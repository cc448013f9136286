/**
 * The compression algorithms behind {@link dev.stowage.compress.Compression}: LZ4 blocks and zstd
 * frames, each through its optional library. This package is part of the internal API and may
 * change without notice.
 */
@NullMarked
package dev.stowage.internal.compress;

import org.jspecify.annotations.NullMarked;
