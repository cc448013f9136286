package dev.stowage.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A real Redis Cluster on ephemeral loopback ports: six {@link RedisServer} nodes with {@code
 * cluster-enabled yes}, three masters serving slots 0-5460, 5461-10922 and 10923-16383, and one
 * replica of each ({@link #start()}); or the three masters alone ({@link #start(int) start(0)}),
 * which a benchmark compares with one server like for like. Every port and its cluster bus port
 * (the port plus 10000) was found free; none is 6379.
 *
 * <pre>{@code
 * try (RedisClusterSet cluster = RedisClusterSet.start()) {
 *   ... RedisClusterClient.create(cluster.seedUri()) ...
 *   RedisServer killed = cluster.killMaster(cluster.masterOf("user:42"));
 *   cluster.awaitFailover();                       // its replica now serves its slots
 *   cluster.migrateSlot(slot, from, to);           // keys and ownership of one slot
 * }
 * }</pre>
 *
 * <p>The nodes are joined from Java ({@code CLUSTER MEET}, {@code ADDSLOTS}, {@code REPLICATE}), so
 * no {@code redis-cli} is needed. {@link #start} returns once every node knows the others, reports
 * {@code cluster_state:ok}, names the same owner for every slot, and every replica's link to its
 * master is up. The nodes run with {@code cluster-node-timeout} {@value #NODE_TIMEOUT_MILLIS} ms
 * and {@code cluster-replica-validity-factor 0} (a replica always stands for election), so a
 * failover after {@link #killMaster} takes a few seconds; replicas never migrate to another master
 * (and a killed master without one never comes back). Starting, failing over or migrating fails
 * loudly with an {@link IllegalStateException} that carries the nodes' view of the cluster and
 * their own logs.
 *
 * <p>{@link #masters()}, {@link #replicas()} and {@link #nodeForSlot} ask the nodes each time, so
 * they follow failovers and migrations. Used by tests through stowage-testkit's
 * {@code @WithRedisCluster}. Instances are thread-safe, but one failover or migration at a time.
 */
public final class RedisClusterSet implements AutoCloseable {
  /** The number of hash slots: 16384. */
  public static final int SLOTS = 16_384;

  /** The nodes' {@code cluster-node-timeout}, in milliseconds. */
  public static final int NODE_TIMEOUT_MILLIS = 2000;

  private static final String HOST = "127.0.0.1";
  private static final int[][] SLOT_RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
  private static final long POLL_MILLIS = 25;
  private static final int MIGRATE_BATCH = 100;
  private static final String MIGRATE_TIMEOUT_MILLIS = "5000";
  private static final String[] NODE_ARGS = {
    "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MILLIS),
    "--cluster-replica-validity-factor", "0",
    "--cluster-allow-replica-migration", "no",
    // A full synchronisation starts at once rather than after 5 s of waiting for more replicas.
    "--repl-diskless-sync-delay", "0",
    // Cluster events (failure reports, elections, epochs) are logged at notice, for failure
    // messages.
    "--loglevel", "notice"
  };
  private static final int LOG_LINES = 40;

  /**
   * In the order they started: the three first masters, then their replicas (if any) in the same
   * order.
   */
  private final List<RedisServer> nodes;

  /** Each node's cluster id, by index in {@link #nodes}; kept across restarts in its nodes.conf. */
  private final List<String> ids;

  /** 0 or 1. */
  private final int replicasPerMaster;

  private RedisClusterSet(List<RedisServer> nodes, List<String> ids, int replicasPerMaster) {
    this.nodes = nodes;
    this.ids = ids;
    this.replicasPerMaster = replicasPerMaster;
  }

  /**
   * Starts six nodes and joins them into three masters, each with one replica, covering all 16384
   * slots.
   *
   * @throws IllegalStateException if a node does not start, or the cluster does not form within a
   *     minute; every node started is stopped again
   */
  public static RedisClusterSet start() {
    return start(1);
  }

  /**
   * Starts three masters covering all 16384 slots, each with {@code replicasPerMaster} replicas: 1
   * is {@link #start()}; 0 makes a cluster of three masters alone, which cannot fail over.
   *
   * @throws IllegalArgumentException if {@code replicasPerMaster} is neither 0 nor 1
   * @throws IllegalStateException if a node does not start, or the cluster does not form within a
   *     minute; every node started is stopped again
   */
  public static RedisClusterSet start(int replicasPerMaster) {
    return start(null, replicasPerMaster);
  }

  /**
   * Starts a cluster like {@link #start(int)} whose nodes speak only TLS, with {@code
   * certificates}' server certificate, to clients, to each other and to their replicas, and want a
   * client certificate signed by their authority ({@link RedisServer#startTls}). Every one of
   * {@link #uris()} is {@code rediss://}.
   *
   * @throws IllegalArgumentException if {@code replicasPerMaster} is neither 0 nor 1
   * @throws IllegalStateException as {@link #start(int)}, and for a {@code redis-server} built
   *     without TLS
   */
  public static RedisClusterSet startTls(TlsCertificates certificates, int replicasPerMaster) {
    return start(Objects.requireNonNull(certificates, "certificates"), replicasPerMaster);
  }

  private static RedisClusterSet start(@Nullable TlsCertificates tls, int replicasPerMaster) {
    if (replicasPerMaster != 0 && replicasPerMaster != 1) {
      throw new IllegalArgumentException(
          "replicasPerMaster must be 0 or 1, not " + replicasPerMaster);
    }
    List<RedisServer> started = new ArrayList<>();
    try {
      for (int i = 0; i < (1 + replicasPerMaster) * SLOT_RANGES.length; i++) {
        started.add(RedisServer.startClusterNode(tls, NODE_ARGS));
      }
      List<String> ids = new ArrayList<>();
      for (RedisServer node : started) {
        ids.add(String.valueOf(node.reply("CLUSTER", "MYID")));
      }
      RedisClusterSet cluster =
          new RedisClusterSet(List.copyOf(started), List.copyOf(ids), replicasPerMaster);
      cluster.form();
      return cluster;
    } catch (RuntimeException e) {
      for (int i = started.size() - 1; i >= 0; i--) {
        started.get(i).close();
      }
      throw e;
    }
  }

  private void form() {
    // Distinct epochs from the start, as redis-cli gives them, spare the nodes resolving
    // collisions.
    for (int i = 0; i < nodes.size(); i++) {
      nodes.get(i).reply("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
    }
    RedisServer first = nodes.get(0);
    for (RedisServer node : nodes.subList(1, nodes.size())) {
      node.reply("CLUSTER", "MEET", HOST, Integer.toString(first.port()));
    }
    for (int m = 0; m < SLOT_RANGES.length; m++) {
      List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
      for (int slot = SLOT_RANGES[m][0]; slot <= SLOT_RANGES[m][1]; slot++) {
        command.add(Integer.toString(slot));
      }
      nodes.get(m).reply(command.toArray(String[]::new));
    }
    waitUntil(
        "every node knows the other " + (nodes.size() - 1),
        () -> {
          for (RedisServer node : nodes) {
            List<NodeLine> view = clusterNodes(node);
            if (view.size() != nodes.size()
                || view.stream()
                    .anyMatch(
                        line ->
                            line.flags.contains("handshake") || line.flags.contains("noaddr"))) {
              return false;
            }
          }
          return true;
        });
    for (int r = SLOT_RANGES.length; r < nodes.size(); r++) {
      nodes.get(r).reply("CLUSTER", "REPLICATE", ids.get(r - SLOT_RANGES.length));
    }
    waitUntil(
        "the cluster forms: three masters serving all "
            + SLOTS
            + " slots, "
            + (replicasPerMaster == 0 ? "no replicas" : "one replica of each in sync")
            + ", and cluster_state:ok on every node",
        this::isFormed);
  }

  private boolean isFormed() {
    int[] reference = null;
    for (RedisServer node : nodes) {
      if (!clusterStateOk(node)) {
        return false;
      }
      int[] owners = slotOwners(node);
      if (reference == null) {
        reference = owners;
      } else if (!Arrays.equals(reference, owners)) {
        return false;
      }
      for (NodeLine line : clusterNodes(node)) {
        int index = indexOf(line.port);
        boolean shouldBeMaster = index < SLOT_RANGES.length;
        if (shouldBeMaster
            ? !line.flags.contains("master")
            : !line.flags.contains("slave")
                || !ids.get(index - SLOT_RANGES.length).equals(line.masterId)) {
          return false;
        }
      }
    }
    if (reference == null) {
      return false;
    }
    for (int m = 0; m < SLOT_RANGES.length; m++) {
      for (int slot = SLOT_RANGES[m][0]; slot <= SLOT_RANGES[m][1]; slot++) {
        if (reference[slot] != nodes.get(m).port()) {
          return false;
        }
      }
      if (replicasPerMaster > 0 && !linkUp(nodes.get(SLOT_RANGES.length + m), nodes.get(m))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every node (six, or three without replicas) in the order they started, whether running or not
   * and whatever their role now.
   */
  public List<RedisServer> nodes() {
    return nodes;
  }

  /** The running nodes that answer {@code ROLE} as master, in the order they started. */
  public List<RedisServer> masters() {
    return withRole("master");
  }

  /** The running nodes that answer {@code ROLE} as replica, in the order they started. */
  public List<RedisServer> replicas() {
    return withRole("slave");
  }

  /** The running replicas of {@code master}, by their own {@code INFO replication}. */
  public List<RedisServer> replicasOf(RedisServer master) {
    List<RedisServer> replicas = new ArrayList<>();
    for (RedisServer replica : replicas()) {
      if (Integer.toString(master.port()).equals(info(replica, "replication").get("master_port"))) {
        replicas.add(replica);
      }
    }
    return replicas;
  }

  /** The hash slot of {@code key}, by {@code CLUSTER KEYSLOT} on a running node. */
  public int slotOf(String key) {
    Object slot = anyRunning().reply("CLUSTER", "KEYSLOT", key);
    return ((Long) Objects.requireNonNull(slot, "CLUSTER KEYSLOT")).intValue();
  }

  /**
   * The master that serves {@code slot}, as the first running master sees the cluster ({@code
   * CLUSTER SLOTS}). Between a {@link #killMaster} and its {@link #awaitFailover()}, that may be
   * the killed node.
   *
   * @throws IllegalArgumentException if {@code slot} is not between 0 and 16383
   * @throws IllegalStateException if no node serves it, or no master runs
   */
  public RedisServer nodeForSlot(int slot) {
    if (slot < 0 || slot >= SLOTS) {
      throw new IllegalArgumentException(
          "a slot is between 0 and " + (SLOTS - 1) + ", got " + slot);
    }
    List<RedisServer> masters = masters();
    if (masters.isEmpty()) {
      throw new IllegalStateException("no master runs in " + this);
    }
    int port = slotOwners(masters.get(0))[slot];
    if (port == 0) {
      throw new IllegalStateException("no node serves slot " + slot + " in " + this);
    }
    return nodes.get(indexOf(port));
  }

  /** The master that serves {@code key}'s slot: {@code nodeForSlot(slotOf(key))}. */
  public RedisServer masterOf(String key) {
    return nodeForSlot(slotOf(key));
  }

  /**
   * The URI of the first running node, such as {@code redis://127.0.0.1:41234}, to seed a client.
   */
  public String seedUri() {
    return anyRunning().uri();
  }

  /** The URIs of the running nodes, in the order they started. */
  public List<String> uris() {
    return nodes.stream()
        .filter(RedisServer::isRunning)
        .map(RedisServer::uri)
        .collect(Collectors.toList());
  }

  /**
   * Kills the master that serves slot 0 with {@code SIGKILL} ({@link RedisServer#kill()}) and
   * returns it; see {@link #killMaster(RedisServer)}.
   */
  public RedisServer killMaster() {
    return killMaster(nodeForSlot(0));
  }

  /**
   * Kills {@code master} with {@code SIGKILL}, as a crash would, and returns it. Its replica takes
   * over its slots once the other masters have agreed that it failed; {@link #awaitFailover()}
   * waits for that. It stays in {@link #nodes()}, not running, until {@link #revive}.
   *
   * @throws IllegalArgumentException if {@code master} is not a running master of this cluster
   */
  public synchronized RedisServer killMaster(RedisServer master) {
    if (!nodes.contains(master) || !masters().contains(master)) {
      throw new IllegalArgumentException(master + " is not a running master of " + this);
    }
    master.kill();
    return master;
  }

  /**
   * Waits until every slot is served by a running master, and every running node reports {@code
   * cluster_state:ok} and names the same owner for every slot: after {@link #killMaster}, until a
   * replica of the killed master has been promoted and the cluster knows it. Returns {@link
   * #masters()} then.
   *
   * @throws IllegalStateException if that does not happen within a minute, as when a master without
   *     a replica was killed
   */
  public synchronized List<RedisServer> awaitFailover() {
    waitUntil(
        "every slot is served by a running master and every running node reports cluster_state:ok and"
            + " agrees on the owner of every slot",
        this::servedByRunningMasters);
    return masters();
  }

  /**
   * Starts a {@link #killMaster killed} node again on its port, where it rejoins the cluster as
   * itself (its {@code nodes.conf} is kept) and, having lost its slots, as a replica of the master
   * that took them over. Returns once it has synchronised with that master and every running node
   * agrees on the slots again. It starts empty (nothing is persisted) and takes its data from that
   * master.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster, or runs
   * @throws IllegalStateException if it does not start, or does not become a synchronised replica
   *     within a minute
   */
  public synchronized void revive(RedisServer node) {
    if (!nodes.contains(node) || node.isRunning()) {
      throw new IllegalArgumentException(node + " is not a stopped node of " + this);
    }
    node.restart();
    waitUntil(
        "the restarted node on port "
            + node.port()
            + " replicates a master in sync, and every slot is"
            + " served by a running master",
        () -> {
          String masterPort = info(node, "replication").get("master_port");
          return masterPort != null
              && linkUp(node, nodes.get(indexOf(Integer.parseInt(masterPort))))
              && servedByRunningMasters();
        });
  }

  /**
   * Moves {@code slot} and its keys from master {@code from} to master {@code to}, the way {@code
   * redis-cli --cluster reshard} does: {@code CLUSTER SETSLOT slot IMPORTING} on {@code to}, {@code
   * MIGRATING} on {@code from}, then {@code MIGRATE} of the keys {@code CLUSTER GETKEYSINSLOT}
   * lists, {@value #MIGRATE_BATCH} at a time until none is left, and {@code CLUSTER SETSLOT slot
   * NODE} on {@code to}, {@code from} and the other running masters. While it runs, clients see
   * {@code ASK} redirections for keys already moved, as in a real resharding; keys written to
   * {@code from} meanwhile move too. Returns the number of keys moved, once every running node
   * names {@code to} as the slot's owner.
   *
   * <p>Keys are read and written as UTF-8 text, as {@link RedisServer#reply} does; a key that is
   * not valid UTF-8 does not move.
   *
   * @throws IllegalArgumentException if {@code slot} is out of range, {@code from} does not serve
   *     it, {@code to} is not a running master, or they are the same node
   * @throws IllegalStateException if a command fails, such as {@code MIGRATE} finding the key on
   *     {@code to} already ({@code BUSYKEY}), or the nodes do not agree within a minute
   */
  public synchronized int migrateSlot(int slot, RedisServer from, RedisServer to) {
    RedisServer owner = nodeForSlot(slot);
    List<RedisServer> masters = masters();
    if (owner != from) {
      throw new IllegalArgumentException(
          "slot " + slot + " is served by " + owner + ", not by " + from);
    }
    if (to == from || !masters.contains(to)) {
      throw new IllegalArgumentException(to + " is not another running master of " + this);
    }
    String slotText = Integer.toString(slot);
    to.reply("CLUSTER", "SETSLOT", slotText, "IMPORTING", id(from));
    from.reply("CLUSTER", "SETSLOT", slotText, "MIGRATING", id(to));
    int moved = 0;
    while (true) {
      Object keys =
          from.reply("CLUSTER", "GETKEYSINSLOT", slotText, Integer.toString(MIGRATE_BATCH));
      if (!(keys instanceof List<?> batch) || batch.isEmpty()) {
        break;
      }
      List<String> command =
          new ArrayList<>(
              List.of(
                  "MIGRATE",
                  HOST,
                  Integer.toString(to.port()),
                  "",
                  "0",
                  MIGRATE_TIMEOUT_MILLIS,
                  "KEYS"));
      for (Object key : batch) {
        command.add(String.valueOf(key));
      }
      Object reply = from.reply(command.toArray(String[]::new));
      if ("OK".equals(reply)) {
        moved += batch.size();
      } else if (!"NOKEY".equals(reply)) {
        throw new IllegalStateException("MIGRATE of slot " + slot + " answered " + reply);
      }
    }
    List<RedisServer> told = new ArrayList<>(List.of(to, from));
    for (RedisServer master : masters) {
      if (!told.contains(master)) {
        told.add(master);
      }
    }
    for (RedisServer master : told) {
      master.reply("CLUSTER", "SETSLOT", slotText, "NODE", id(to));
    }
    waitUntil(
        "every running node names port " + to.port() + " as the owner of slot " + slot,
        () -> {
          for (RedisServer node : running()) {
            if (slotOwners(node)[slot] != to.port() || !clusterStateOk(node)) {
              return false;
            }
          }
          return true;
        });
    return moved;
  }

  /** Stops every node and deletes their directories. */
  @Override
  public void close() {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      nodes.get(i).close();
    }
  }

  @Override
  public String toString() {
    return "RedisClusterSet[nodes on ports "
        + nodes.stream()
            .map(n -> n.port() + (n.isRunning() ? "" : " (stopped)"))
            .collect(Collectors.joining(", "))
        + "]";
  }

  private boolean servedByRunningMasters() {
    List<RedisServer> running = running();
    Set<Integer> masterPorts = new HashSet<>();
    for (RedisServer master : masters()) {
      masterPorts.add(master.port());
    }
    int[] reference = null;
    for (RedisServer node : running) {
      if (!clusterStateOk(node)) {
        return false;
      }
      int[] owners = slotOwners(node);
      if (reference == null) {
        reference = owners;
      } else if (!Arrays.equals(reference, owners)) {
        return false;
      }
    }
    if (reference == null) {
      return false;
    }
    for (int port : reference) {
      if (!masterPorts.contains(port)) {
        return false;
      }
    }
    return true;
  }

  private List<RedisServer> running() {
    return nodes.stream().filter(RedisServer::isRunning).collect(Collectors.toList());
  }

  private RedisServer anyRunning() {
    for (RedisServer node : nodes) {
      if (node.isRunning()) {
        return node;
      }
    }
    throw new IllegalStateException("no node runs in " + this);
  }

  private List<RedisServer> withRole(String role) {
    List<RedisServer> matching = new ArrayList<>();
    for (RedisServer node : running()) {
      if (node.reply("ROLE") instanceof List<?> reply
          && !reply.isEmpty()
          && role.equals(reply.get(0))) {
        matching.add(node);
      }
    }
    return matching;
  }

  private String id(RedisServer node) {
    return ids.get(nodes.indexOf(node));
  }

  private int indexOf(int port) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).port() == port) {
        return i;
      }
    }
    throw new IllegalStateException("port " + port + " is not a node of " + this);
  }

  private static boolean clusterStateOk(RedisServer node) {
    Map<String, String> info = fields(node.reply("CLUSTER", "INFO"));
    return "ok".equals(info.get("cluster_state"));
  }

  /** Whether {@code replica} says it replicates {@code master} and its link is up. */
  private static boolean linkUp(RedisServer replica, RedisServer master) {
    Map<String, String> info = info(replica, "replication");
    return "slave".equals(info.get("role"))
        && Integer.toString(master.port()).equals(info.get("master_port"))
        && "up".equals(info.get("master_link_status"));
  }

  /**
   * The port of the master that serves each slot as {@code node} sees it ({@code CLUSTER SLOTS}), 0
   * for none.
   */
  private static int[] slotOwners(RedisServer node) {
    int[] owners = new int[SLOTS];
    Object reply = node.reply("CLUSTER", "SLOTS");
    if (reply instanceof List<?> ranges) {
      for (Object entry : ranges) {
        if (entry instanceof List<?> range
            && range.size() >= 3
            && range.get(2) instanceof List<?> master) {
          int port = ((Long) Objects.requireNonNull(master.get(1))).intValue();
          Arrays.fill(
              owners, ((Long) range.get(0)).intValue(), ((Long) range.get(1)).intValue() + 1, port);
        }
      }
    }
    return owners;
  }

  /** One line of {@code CLUSTER NODES}. */
  private record NodeLine(String id, int port, Set<String> flags, String masterId) {}

  private static List<NodeLine> clusterNodes(RedisServer node) {
    List<NodeLine> lines = new ArrayList<>();
    for (String line : String.valueOf(node.reply("CLUSTER", "NODES")).split("\n")) {
      String[] parts = line.strip().split(" ");
      if (parts.length < 8) {
        continue;
      }
      // <id> <ip:port@cport[,hostname]> <flags> <master id or -> ...
      String address = parts[1];
      int at = address.indexOf('@');
      String hostPort = at < 0 ? address : address.substring(0, at);
      String port = hostPort.substring(hostPort.lastIndexOf(':') + 1);
      lines.add(
          new NodeLine(
              parts[0],
              port.isEmpty() ? 0 : Integer.parseInt(port),
              Set.of(parts[2].split(",")),
              parts[3]));
    }
    return lines;
  }

  private static Map<String, String> info(RedisServer node, String section) {
    return fields(node.reply("INFO", section));
  }

  /** {@code name:value} lines, as {@code INFO} and {@code CLUSTER INFO} answer. */
  private static Map<String, String> fields(@Nullable Object text) {
    Map<String, String> fields = new HashMap<>();
    for (String line : String.valueOf(text).split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1));
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
        lastError = e; // a node not answering yet, or a reply not as expected yet: ask again
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
    for (RedisServer node : nodes) {
      message.append("\n--- node ").append(node.port()).append(" (").append(id(node)).append(")");
      if (node.isRunning()) {
        try {
          message
              .append(", CLUSTER NODES:\n")
              .append(String.valueOf(node.reply("CLUSTER", "NODES")).strip());
        } catch (IllegalStateException e) {
          message.append(", CLUSTER NODES failed: ").append(e.getMessage());
        }
      } else {
        message.append(", not running");
      }
      message.append("\n--- its log:\n").append(tail(node.log()));
    }
    throw new IllegalStateException(message.toString(), lastError);
  }

  private static String tail(String log) {
    String[] lines = log.split("\n");
    return lines.length <= LOG_LINES
        ? log
        : "...\n"
            + String.join(
                "\n", Arrays.asList(lines).subList(lines.length - LOG_LINES, lines.length));
  }
}
