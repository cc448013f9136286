/**
 * {@code stowage bench http}, table T1: the board service in each mode, in a JVM of its own with a
 * fresh embedded Redis and H2, preloaded with seed-shaped posts, then a write load and a read load
 * from the same number of virtual users, with {@code wrk} beside the read load when it is
 * installed; with {@code --events}, each mode's writes also with an events outbox relayed to an
 * embedded Kafka broker, beside the same mode without ({@link dev.stowage.bench.http.OutboxDrain}
 * checks that the outbox emptied). Parameters and return values are never {@code null} unless a
 * method says otherwise.
 */
package dev.stowage.bench.http;
