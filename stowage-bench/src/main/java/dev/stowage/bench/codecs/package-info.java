/**
 * Table T3: the cost and size of every codec, bare and inside Stowage's envelope with each
 * compression, measured with JMH ({@link dev.stowage.bench.codecs.CodecBenchmark}) and run by
 * {@link dev.stowage.bench.codecs.CodecsBench}. Parameters and return values are never {@code null}
 * unless a method says otherwise.
 */
package dev.stowage.bench.codecs;
