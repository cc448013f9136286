/**
 * Writing and reading the bytes of the envelope. This package is part of the internal API and may
 * change without notice.
 */
@NullMarked
package dev.stowage.internal.envelope;

import org.jspecify.annotations.NullMarked;
