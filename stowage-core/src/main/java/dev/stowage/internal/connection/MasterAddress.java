package dev.stowage.internal.connection;

/**
 * The address of a cluster's master, as the shared cluster connection knows it: what a bulk
 * operation's lane is sent to, and what {@link RedisSession#masterConnection} connects to.
 */
public record MasterAddress(String host, int port) {}
