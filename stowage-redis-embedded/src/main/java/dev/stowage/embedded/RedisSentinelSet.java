package dev.stowage.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A real Sentinel topology on ephemeral loopback ports: a master, one replica of it, and sentinels
 * that watch them under the name {@value #MASTER_NAME}. Every process is a {@link RedisServer};
 * none uses port 6379 or a port it did not find free.
 *
 * <pre>{@code
 * try (RedisSentinelSet redis = RedisSentinelSet.start()) {
 *   ... redis.uri() ...                 // redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3#mymaster
 *   RedisServer promoted = redis.failover();
 * }
 * }</pre>
 *
 * <p>{@link #start} returns once the replica has synchronised and every sentinel knows the replica
 * and the other sentinels, so a {@link #failover()} can begin at once. Where the server has {@code
 * SENTINEL DEBUG} (Redis 7.0 and later), the sentinels' timers are shortened so that a failover
 * completes in about two seconds rather than ten or more; nothing else about Sentinel's behaviour
 * changes. Starting or failing over fails loudly with an {@link IllegalStateException} that carries
 * the processes' own output.
 *
 * <p>Used by tests through stowage-testkit's {@code @WithRedisSentinel}. Instances are thread-safe,
 * but one failover at a time.
 */
public final class RedisSentinelSet implements AutoCloseable {
  /** The name under which the sentinels watch the master: {@code mymaster}. */
  public static final String MASTER_NAME = "mymaster";

  private static final String HOST = "127.0.0.1";
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
  private static final long POLL_MILLIS = 50;

  /** Shorter than Sentinel's own periods (10 s for INFO), so that a failover takes seconds. */
  private static final String[] FAST_TIMERS = {
    "info-period",
    "250",
    "ping-period",
    "250",
    "ask-period",
    "250",
    "publish-period",
    "250",
    "tilt-trigger",
    "10000",
    "tilt-period",
    "2000"
  };

  private final List<RedisServer> dataNodes;
  private final List<RedisServer> sentinels;

  private RedisSentinelSet(List<RedisServer> dataNodes, List<RedisServer> sentinels) {
    this.dataNodes = dataNodes;
    this.sentinels = sentinels;
  }

  /** Starts a master, a replica and three sentinels (quorum two). */
  public static RedisSentinelSet start() {
    return start(3);
  }

  /**
   * Starts a master, a replica and {@code sentinelCount} sentinels, with a quorum of a majority of
   * them.
   *
   * @throws IllegalArgumentException if {@code sentinelCount} is not between 1 and 5
   * @throws IllegalStateException if a process does not start, or the topology does not settle
   *     within a minute
   */
  public static RedisSentinelSet start(int sentinelCount) {
    if (sentinelCount < 1 || sentinelCount > 5) {
      throw new IllegalArgumentException(
          "sentinelCount must be between 1 and 5, got " + sentinelCount);
    }
    List<RedisServer> started = new ArrayList<>();
    try {
      // A full synchronisation starts at once rather than after 5 s of waiting for more replicas.
      RedisServer master = RedisServer.start("--repl-diskless-sync-delay", "0");
      started.add(master);
      RedisServer replica =
          RedisServer.start(
              "--repl-diskless-sync-delay",
              "0",
              "--replicaof",
              HOST,
              Integer.toString(master.port()));
      started.add(replica);
      String config =
          "sentinel monitor "
              + MASTER_NAME
              + " "
              + HOST
              + " "
              + master.port()
              + " "
              + (sentinelCount / 2 + 1)
              + "\n"
              + "sentinel down-after-milliseconds "
              + MASTER_NAME
              + " 5000\n"
              + "sentinel failover-timeout "
              + MASTER_NAME
              + " 10000\n"
              + "sentinel parallel-syncs "
              + MASTER_NAME
              + " 1\n";
      List<RedisServer> sentinels = new ArrayList<>();
      for (int i = 0; i < sentinelCount; i++) {
        RedisServer sentinel = RedisServer.startSentinel(config);
        started.add(sentinel);
        sentinels.add(sentinel);
        shortenTimers(sentinel);
      }
      RedisSentinelSet set = new RedisSentinelSet(List.of(master, replica), List.copyOf(sentinels));
      set.waitUntil(
          "the replica on port "
              + replica.port()
              + " has synchronised with the master on port "
              + master.port()
              + " and every sentinel knows it and the other sentinels",
          () -> set.isReplicaOf(replica, master) && set.sentinelsKnow(master, replica));
      return set;
    } catch (RuntimeException e) {
      for (int i = started.size() - 1; i >= 0; i--) {
        started.get(i).close();
      }
      throw e;
    }
  }

  /** {@value #MASTER_NAME}. */
  public String masterName() {
    return MASTER_NAME;
  }

  /**
   * The URI through the sentinels, such as {@code
   * redis-sentinel://127.0.0.1:41001,127.0.0.1:41002,127.0.0.1:41003#mymaster}.
   */
  public String uri() {
    return "redis-sentinel://"
        + sentinels.stream().map(s -> HOST + ":" + s.port()).collect(Collectors.joining(","))
        + "#"
        + MASTER_NAME;
  }

  /** The sentinels, in the order of {@link #uri()}. */
  public List<RedisServer> sentinels() {
    return sentinels;
  }

  /**
   * The data node that the first sentinel that answers names as master now.
   *
   * @throws IllegalStateException if no sentinel answers, or the one that does names another server
   */
  public RedisServer master() {
    IllegalStateException last = null;
    for (RedisServer sentinel : sentinels) {
      try {
        return dataNode(masterPortOf(sentinel));
      } catch (IllegalStateException e) {
        last = e;
      }
    }
    throw last;
  }

  /** The data node that is not {@link #master()}. */
  public RedisServer replica() {
    return other(master());
  }

  /**
   * Fails the master over with {@code SENTINEL FAILOVER mymaster} and returns the promoted server.
   * Returns once every sentinel names it, it answers as master, and the former master has become
   * its replica and synchronised; clients that were connected to the former master were
   * disconnected by Sentinel on the way. Another failover can follow at once.
   *
   * @throws IllegalStateException if a sentinel refuses the failover, or it does not complete
   *     within a minute
   */
  public synchronized RedisServer failover() {
    RedisServer former = master();
    RedisServer promoted = other(former);
    RedisServer leader = sentinels.get(0);
    waitUntil(
        "sentinel " + leader.port() + " sees the replica on port " + promoted.port() + " in sync",
        () -> replicaLooksHealthy(leader, promoted));
    Object reply = leader.reply("SENTINEL", "FAILOVER", MASTER_NAME);
    if (!"OK".equals(reply)) {
      throw new IllegalStateException("SENTINEL FAILOVER answered " + reply);
    }
    waitUntil(
        "the failover from port " + former.port() + " to port " + promoted.port() + " completes",
        () ->
            sentinelsName(promoted)
                && "master".equals(role(promoted))
                && isReplicaOf(former, promoted)
                && sentinelsKnow(promoted, former));
    return promoted;
  }

  /** Stops the sentinels, then the replica and the master, and deletes their directories. */
  @Override
  public void close() {
    for (RedisServer sentinel : sentinels) {
      sentinel.close();
    }
    for (int i = dataNodes.size() - 1; i >= 0; i--) {
      dataNodes.get(i).close();
    }
  }

  @Override
  public String toString() {
    return "RedisSentinelSet["
        + uri()
        + ", data nodes on ports "
        + dataNodes.get(0).port()
        + " and "
        + dataNodes.get(1).port()
        + "]";
  }

  private static void shortenTimers(RedisServer sentinel) {
    String[] command = new String[FAST_TIMERS.length + 2];
    command[0] = "SENTINEL";
    command[1] = "DEBUG";
    System.arraycopy(FAST_TIMERS, 0, command, 2, FAST_TIMERS.length);
    try {
      sentinel.reply(command);
    } catch (IllegalStateException e) {
      // Before Redis 7.0 there is no SENTINEL DEBUG ("Unknown sentinel subcommand"): Sentinel's own
      // timers apply, and a failover takes longer; failover() waits for it all the same.
      if (e.getMessage() == null
          || !e.getMessage().toLowerCase(Locale.ROOT).contains("subcommand")) {
        throw e;
      }
    }
  }

  private RedisServer dataNode(int port) {
    for (RedisServer node : dataNodes) {
      if (node.port() == port) {
        return node;
      }
    }
    throw new IllegalStateException(
        "the sentinels name port " + port + " as master, which is not a data node of " + this);
  }

  private RedisServer other(RedisServer node) {
    return dataNodes.get(0) == node ? dataNodes.get(1) : dataNodes.get(0);
  }

  private static int masterPortOf(RedisServer sentinel) {
    Object reply = sentinel.reply("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
    if (!(reply instanceof List<?> address) || address.size() != 2) {
      throw new IllegalStateException("sentinel " + sentinel.port() + " answered " + reply);
    }
    return Integer.parseInt((String) address.get(1));
  }

  private boolean sentinelsName(RedisServer master) {
    for (RedisServer sentinel : sentinels) {
      if (masterPortOf(sentinel) != master.port()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether every sentinel names {@code master}, sees {@code replica} in sync, and knows the
   * others.
   */
  private boolean sentinelsKnow(RedisServer master, RedisServer replica) {
    if (!sentinelsName(master)) {
      return false;
    }
    for (RedisServer sentinel : sentinels) {
      Map<String, String> state = fields(sentinel.reply("SENTINEL", "MASTER", MASTER_NAME));
      if (!"master".equals(state.get("flags"))
          || !Integer.toString(sentinels.size() - 1).equals(state.get("num-other-sentinels"))
          || !replicaLooksHealthy(sentinel, replica)) {
        return false;
      }
    }
    return true;
  }

  private static boolean replicaLooksHealthy(RedisServer sentinel, RedisServer replica) {
    Object replicas = sentinel.reply("SENTINEL", "REPLICAS", MASTER_NAME);
    if (!(replicas instanceof List<?> list)) {
      return false;
    }
    for (Object entry : list) {
      Map<String, String> state = fields(entry);
      if (Integer.toString(replica.port()).equals(state.get("port"))) {
        return "slave".equals(state.get("flags")) && "ok".equals(state.get("master-link-status"));
      }
    }
    return false;
  }

  /** Whether {@code node} says it replicates {@code master} and its link is up. */
  private boolean isReplicaOf(RedisServer node, RedisServer master) {
    Map<String, String> info = info(node, "replication");
    return "slave".equals(info.get("role"))
        && Integer.toString(master.port()).equals(info.get("master_port"))
        && "up".equals(info.get("master_link_status"));
  }

  private static @Nullable String role(RedisServer node) {
    return info(node, "replication").get("role");
  }

  private static Map<String, String> info(RedisServer node, String section) {
    Map<String, String> fields = new HashMap<>();
    Object text = node.reply("INFO", section);
    for (String line : String.valueOf(text).split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return fields;
  }

  /** A Sentinel reply of alternating names and values, as a map. */
  private static Map<String, String> fields(@Nullable Object reply) {
    Map<String, String> fields = new HashMap<>();
    if (reply instanceof List<?> list) {
      for (int i = 0; i + 1 < list.size(); i += 2) {
        fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
      }
    }
    return fields;
  }

  private void waitUntil(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    IllegalStateException lastError = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
        lastError = null;
      } catch (IllegalStateException e) {
        lastError = e; // a process not answering yet, or an answer not parsed yet: ask again
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting until " + what, e);
      }
    }
    StringBuilder message =
        new StringBuilder("waited ")
            .append(SETTLE_TIMEOUT.toSeconds())
            .append(" s in vain until ")
            .append(what);
    if (lastError != null) {
      message.append("; last error: ").append(lastError.getMessage());
    }
    for (RedisServer node : dataNodes) {
      message.append("\n--- data node ").append(node.port()).append(":\n").append(node.log());
    }
    for (RedisServer sentinel : sentinels) {
      message
          .append("\n--- sentinel ")
          .append(sentinel.port())
          .append(":\n")
          .append(sentinel.log());
    }
    throw new IllegalStateException(message.toString(), lastError);
  }
}
