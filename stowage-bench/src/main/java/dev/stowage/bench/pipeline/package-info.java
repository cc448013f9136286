/**
 * Table T2 ({@code stowage bench pipeline}): writing N five-field items one by one, in the second
 * seed's Spring {@code executePipelined}, in a Redisson batch, through Stowage's {@code putAll},
 * and as raw pipelined Lettuce commands of pre-encoded bytes (the limit).
 */
package dev.stowage.bench.pipeline;
