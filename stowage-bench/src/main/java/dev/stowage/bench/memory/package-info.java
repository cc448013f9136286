/**
 * Tables T1 (memory) and T5 (memory), {@code stowage bench memory}: the Redis memory that N records
 * take with each codec and compression, in the seed's layout (whole records as sorted-set members;
 * for the fifth seed a key per record), a key per record, and Stowage's feed.
 */
package dev.stowage.bench.memory;
