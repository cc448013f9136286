package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@WithRedisCluster
@Isolated("A failover is bound to timings (a replica's promotion) that a busy CPU moves.")
class RedisClusterSetIntegrationTests {

  @Test
  void threeMastersAndThreeReplicasServeAllSlots(RedisClusterSet cluster) {
    List<RedisServer> masters = cluster.masters();
    List<RedisServer> replicas = cluster.replicas();
    assertThat(masters).hasSize(3);
    assertThat(replicas).hasSize(3).doesNotContainAnyElementsOf(masters);
    assertThat(cluster.nodes()).hasSize(6).containsAll(masters).containsAll(replicas);
    Set<RedisServer> replicated = new HashSet<>();
    for (RedisServer master : masters) {
      List<RedisServer> itsReplicas = cluster.replicasOf(master);
      assertThat(itsReplicas).hasSize(1);
      replicated.add(itsReplicas.get(0));
    }
    assertThat(replicated).containsExactlyInAnyOrderElementsOf(replicas);

    List<String> uris = new ArrayList<>();
    for (RedisServer node : cluster.nodes()) {
      assertThat(node.port()).isNotEqualTo(6379).isLessThan(55_536);
      uris.add("redis://127.0.0.1:" + node.port());
      String info = String.valueOf(node.reply("CLUSTER", "INFO"));
      assertThat(info)
          .contains(
              "cluster_state:ok",
              "cluster_slots_assigned:16384",
              "cluster_slots_ok:16384",
              "cluster_known_nodes:6",
              "cluster_size:3");
    }
    assertThat(cluster.uris()).isEqualTo(uris);
    assertThat(cluster.seedUri()).isEqualTo(uris.get(0));

    // Every node names a master for every slot; each master serves about a third (another test may
    // have moved a slot), and nodeForSlot agrees with the nodes.
    for (RedisServer node : cluster.nodes()) {
      int[] served = new int[masters.size()];
      for (Object entry : (List<?>) node.reply("CLUSTER", "SLOTS")) {
        List<?> range = (List<?>) entry;
        RedisServer owner =
            cluster.nodes().get(portIndex(cluster, (Long) ((List<?>) range.get(2)).get(1)));
        assertThat(masters).contains(owner);
        int first = ((Long) range.get(0)).intValue();
        int last = ((Long) range.get(1)).intValue();
        assertThat(cluster.nodeForSlot(first)).isSameAs(owner);
        assertThat(cluster.nodeForSlot(last)).isSameAs(owner);
        served[masters.indexOf(owner)] += last - first + 1;
      }
      assertThat(served[0] + served[1] + served[2]).isEqualTo(RedisClusterSet.SLOTS);
      assertThat(IntStream.of(served).min().orElseThrow()).isGreaterThanOrEqualTo(5460);
    }
    assertThatThrownBy(() -> cluster.nodeForSlot(RedisClusterSet.SLOTS))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static int portIndex(RedisClusterSet cluster, long port) {
    for (int i = 0; i < cluster.nodes().size(); i++) {
      if (cluster.nodes().get(i).port() == port) {
        return i;
      }
    }
    throw new AssertionError("no node on port " + port);
  }

  @Test
  void aKeyWrittenThroughItsMasterIsReadThereAndReplicated(RedisClusterSet cluster) {
    String key = "replicated:42";
    RedisServer owner = cluster.masterOf(key);
    long slot = (Long) owner.reply("CLUSTER", "KEYSLOT", key);
    assertThat(cluster.slotOf(key)).isEqualTo(slot);
    assertThat(cluster.nodeForSlot((int) slot)).isSameAs(owner);

    // WAIT on the connection that wrote: on another, it waits for no write and answers at once.
    assertThat(owner.replies(List.of(List.of("SET", key, "value"), List.of("WAIT", "1", "10000"))))
        .containsExactly("OK", 1L);
    assertThat(owner.reply("GET", key)).isEqualTo("value");

    RedisServer replica = cluster.replicasOf(owner).get(0);
    assertThat(replica.replies(List.of(List.of("READONLY"), List.of("GET", key))))
        .containsExactly("OK", "value");
  }

  @Test
  void anotherNodeAnswersMovedToTheOwner(RedisClusterSet cluster) {
    String key = "moved:7";
    RedisServer owner = cluster.masterOf(key);
    int slot = cluster.slotOf(key);
    owner.reply("SET", key, "here");
    for (RedisServer other : cluster.masters()) {
      if (other != owner) {
        assertThatThrownBy(() -> other.reply("GET", key))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("-MOVED " + slot + " 127.0.0.1:" + owner.port());
      }
    }
  }

  @Test
  void migrateSlotMovesTheKeysAndTheOwnership(RedisClusterSet cluster) {
    int keys = 250; // more than one MIGRATE batch
    String tag = "{migrating}";
    int slot = cluster.slotOf(tag);
    RedisServer from = cluster.nodeForSlot(slot);
    RedisServer to = cluster.masters().stream().filter(m -> m != from).findFirst().orElseThrow();
    for (int i = 0; i < keys; i++) {
      from.reply("SET", tag + i, "v" + i);
    }

    assertThat(cluster.migrateSlot(slot, from, to)).isEqualTo(keys);

    assertThat(cluster.nodeForSlot(slot)).isSameAs(to);
    assertThat(to.reply("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)))
        .isEqualTo((long) keys);
    assertThat(from.reply("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(0L);
    for (int i = 0; i < keys; i++) {
      assertThat(to.reply("GET", tag + i)).isEqualTo("v" + i);
    }
    assertThatThrownBy(() -> from.reply("GET", tag + 0))
        .hasMessageContaining("-MOVED " + slot + " 127.0.0.1:" + to.port());
    for (RedisServer node : cluster.nodes()) {
      assertThat(String.valueOf(node.reply("CLUSTER", "INFO"))).contains("cluster_state:ok");
    }
    assertThatThrownBy(() -> cluster.migrateSlot(slot, from, to))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slot " + slot + " is served by");
  }

  @Test
  void migrateSlotMovesWhatLettuceWritesMeanwhile(RedisClusterSet cluster) throws Exception {
    String tag = "{under-load}";
    int slot = cluster.slotOf(tag);
    RedisServer from = cluster.nodeForSlot(slot);
    RedisServer to = cluster.masters().stream().filter(m -> m != from).findFirst().orElseThrow();
    RedisClusterClient client = RedisClusterClient.create(cluster.seedUri());
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
      RedisAdvancedClusterCommands<String, String> redis = connection.sync();
      for (int i = 0; i < 300; i++) {
        redis.set(tag + i, "before");
      }
      AtomicBoolean migrated = new AtomicBoolean();
      // Rewrites the existing keys and adds new ones until the migration is over, then a few more.
      Future<Integer> written =
          writer.submit(
              () -> {
                int i = 0;
                int after = 0;
                while (after < 50) {
                  redis.set(tag + i, "during " + i);
                  i++;
                  if (migrated.get()) {
                    after++;
                  }
                }
                return i;
              });

      int moved = cluster.migrateSlot(slot, from, to);
      migrated.set(true);
      int count = written.get(1, TimeUnit.MINUTES);

      assertThat(moved).isPositive().isLessThanOrEqualTo(Math.max(300, count));
      assertThat(cluster.nodeForSlot(slot)).isSameAs(to);
      assertThat(to.reply("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)))
          .isEqualTo((long) Math.max(300, count));
      assertThat(from.reply("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(0L);
      for (int i = 0; i < Math.max(300, count); i++) {
        String expected = i < count ? "during " + i : "before";
        assertThat(redis.get(tag + i)).isEqualTo(expected);
        assertThat(to.reply("GET", tag + i)).isEqualTo(expected);
      }
    } finally {
      writer.shutdownNow();
      client.shutdown();
    }
  }

  @Test
  void lettucesClusterClientReadsAndWritesAcrossSlots(RedisClusterSet cluster) {
    RedisClusterClient client = RedisClusterClient.create(cluster.seedUri());
    try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
      RedisAdvancedClusterCommands<String, String> redis = connection.sync();
      Set<RedisServer> owners = new HashSet<>();
      for (int i = 0; i < 100; i++) {
        redis.set("lettuce:" + i, "value " + i);
        owners.add(cluster.masterOf("lettuce:" + i));
      }
      assertThat(owners).containsExactlyInAnyOrderElementsOf(cluster.masters());
      for (int i = 0; i < 100; i++) {
        String key = "lettuce:" + i;
        assertThat(redis.get(key)).isEqualTo("value " + i);
        assertThat(cluster.masterOf(key).reply("GET", key)).isEqualTo("value " + i);
      }
      // A multi-key command across slots, which the client splits by slot.
      assertThat(redis.mget("lettuce:1", "lettuce:2", "lettuce:3"))
          .allSatisfy(value -> assertThat(value.hasValue()).isTrue())
          .extracting(value -> value.getValue())
          .containsExactly("value 1", "value 2", "value 3");
      assertThat(redis.clusterInfo()).contains("cluster_state:ok");
    } finally {
      client.shutdown();
    }
  }

  @Test
  void aKilledMastersReplicaTakesOverItsSlotsAndTheKilledNodeComesBackAsReplica() {
    try (RedisClusterSet own = RedisClusterSet.start()) {
      String key = "failover:1";
      int slot = own.slotOf(key);
      RedisServer master = own.masterOf(key);
      RedisServer replica = own.replicasOf(master).get(0);
      // WAIT on the connection that wrote: on another it waits for no write and answers at once,
      // and the kill below could come before the replica had the value (2 failures in 9 full
      // builds).
      assertThat(
              master.replies(
                  List.of(List.of("SET", key, "survives"), List.of("WAIT", "1", "10000"))))
          .containsExactly("OK", 1L);
      long pid = master.pid().orElseThrow();

      assertThat(own.killMaster(master)).isSameAs(master);
      assertThat(master.isRunning()).isFalse();
      assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();

      List<RedisServer> masters = own.awaitFailover();
      assertThat(masters).hasSize(3).contains(replica).doesNotContain(master);
      assertThat(own.nodeForSlot(slot)).isSameAs(replica);
      assertThat(replica.reply("ROLE")).asList().first().isEqualTo("master");
      assertThat(replica.reply("GET", key)).isEqualTo("survives");
      assertThat(replica.reply("SET", key, "after")).isEqualTo("OK");
      for (RedisServer node : own.nodes().stream().filter(RedisServer::isRunning).toList()) {
        assertThat(String.valueOf(node.reply("CLUSTER", "INFO"))).contains("cluster_state:ok");
      }
      assertThatThrownBy(() -> own.killMaster(master)).isInstanceOf(IllegalArgumentException.class);

      own.revive(master);
      assertThat(own.replicasOf(replica)).containsExactly(master);
      assertThat(own.masters()).hasSize(3).doesNotContain(master);
      assertThat(master.replies(List.of(List.of("READONLY"), List.of("GET", key))))
          .containsExactly("OK", "after");
    }
  }

  @Test
  void threeMastersWithoutReplicasServeAllSlots() {
    assertThatThrownBy(() -> RedisClusterSet.start(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 or 1");
    try (RedisClusterSet own = RedisClusterSet.start(0)) {
      assertThat(own.nodes()).hasSize(3);
      assertThat(own.masters()).containsExactlyElementsOf(own.nodes());
      assertThat(own.replicas()).isEmpty();
      for (RedisServer node : own.nodes()) {
        assertThat(String.valueOf(node.reply("CLUSTER", "INFO")))
            .contains(
                "cluster_state:ok",
                "cluster_slots_assigned:16384",
                "cluster_slots_ok:16384",
                "cluster_known_nodes:3",
                "cluster_size:3");
      }
      RedisClusterClient client = RedisClusterClient.create(own.seedUri());
      try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        for (int i = 0; i < 300; i++) {
          redis.set("bare:" + i, "value " + i);
        }
        for (int i = 0; i < 300; i += 7) {
          String key = "bare:" + i;
          assertThat(own.masterOf(key).reply("GET", key)).isEqualTo("value " + i);
        }
      } finally {
        client.shutdown();
      }
      for (RedisServer master : own.masters()) {
        assertThat((Long) master.reply("DBSIZE")).as("keys on %s", master).isGreaterThan(50L);
      }
    }
  }

  @Test
  void closeLeavesNoProcessRunning() {
    RedisClusterSet own = RedisClusterSet.start();
    List<RedisServer> nodes = own.nodes();
    List<Long> pids = new ArrayList<>();
    for (RedisServer node : nodes) {
      OptionalLong pid = node.pid();
      assertThat(pid).isPresent();
      assertThat(ProcessHandle.of(pid.getAsLong()).map(ProcessHandle::isAlive)).contains(true);
      pids.add(pid.getAsLong());
    }

    own.close();

    assertThat(nodes).noneMatch(RedisServer::isRunning).allMatch(node -> node.pid().isEmpty());
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
          .as("process %d", pid)
          .isEmpty();
    }
  }
}
