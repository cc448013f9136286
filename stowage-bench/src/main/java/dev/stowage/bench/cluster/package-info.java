/**
 * {@code stowage bench cluster} (issue 16): 30,000-item bulk writes and reads, and random GETs from
 * many callers, through Stowage and its peers (Redisson's {@code RBatch}, Spring Data Redis's
 * {@code executePipelined}, a raw Lettuce pipeline), each on one server and on a cluster of three
 * masters, to show what the cluster costs per operation.
 */
package dev.stowage.bench.cluster;
