/**
 * Encoding and decoding whole values: {@link dev.stowage.internal.envelope.EnvelopeCodec} puts a
 * codec's bytes, compressed or not, in the envelope of {@code internal.format} and reads them back
 * within the limits of a {@link dev.stowage.internal.envelope.DecompressionBudget}. It sits above
 * the codecs, the compressors and the stores of dictionaries and schemas. This package is part of
 * the internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal.envelope;

import org.jspecify.annotations.NullMarked;
