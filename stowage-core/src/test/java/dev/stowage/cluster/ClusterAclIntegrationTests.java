package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CacheUnavailableException;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * ACL users on a Redis Cluster. ACLs are kept by each node, so every test creates its user on all
 * six nodes (replicas too: a promoted replica must know the user).
 */
@WithRedisCluster
class ClusterAclIntegrationTests {
  /**
   * The rules that README names for a Stowage user on a cluster: its caches' prefixes, its feeds'
   * keys and {@code stowage:*}; the categories a user on one server needs; and what Lettuce's
   * cluster client asks each node when it reads the topology.
   */
  static final List<String> CLUSTER_RULES =
      List.of(
          "+@read",
          "+@write",
          "+@scripting",
          "+@connection",
          "+cluster|nodes",
          "+cluster|myid",
          "+info");

  /** Creates (or replaces) the user {@code name} on every node of the cluster. */
  private static void userOnEveryNode(RedisClusterSet cluster, String name, List<String> rules) {
    List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", name, "reset"));
    command.addAll(rules);
    assertThat(cluster.nodes()).hasSize(6);
    for (RedisServer node : cluster.nodes()) {
      assertThat(node.reply(command.toArray(String[]::new)))
          .as("ACL SETUSER on port %d", node.port())
          .isEqualTo("OK");
    }
  }

  private static String seed(RedisClusterSet cluster, int node, String user, String password) {
    return "redis://" + user + ":" + password + "@127.0.0.1:" + cluster.nodes().get(node).port();
  }

  /** The entries of {@code ACL LOG} on every node: each a command or key some user was refused. */
  private static List<String> refusals(RedisClusterSet cluster) {
    List<String> refused = new ArrayList<>();
    for (RedisServer node : cluster.nodes()) {
      Object log = node.reply("ACL", "LOG");
      if (log instanceof List<?> entries) {
        for (Object entry : entries) {
          refused.add(node.port() + ": " + entry);
        }
      }
    }
    return refused;
  }

  private static void resetRefusals(RedisClusterSet cluster) {
    for (RedisServer node : cluster.nodes()) {
      assertThat(node.reply("ACL", "LOG", "RESET")).isEqualTo("OK");
    }
  }

  private static Map<String, Item> items(int from, int n) {
    Map<String, Item> items = new LinkedHashMap<>();
    for (int i = from; i < from + n; i++) {
      items.put(Integer.toString(i), Samples.item(i));
    }
    return items;
  }

  @Test
  void aUserWithAPasswordRoundTripsAndRunsBulkOperationsOnEveryMaster(RedisClusterSet cluster) {
    userOnEveryNode(cluster, "app", List.of("on", ">app-secret", "~*", "+@all"));

    try (Stowage stowage =
        Stowage.builder()
            .redisCluster(
                seed(cluster, 0, "app", "app-secret"), seed(cluster, 1, "app", "app-secret"))
            .build()) {
      RedisCache<String, Item> cache =
          stowage.cache("acl-app", Item.class).ttl(Duration.ofMinutes(10)).build();
      Set<Integer> masters = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        String key = Integer.toString(i);
        cache.put(key, Samples.item(i));
        assertThat(cache.get(key)).isEqualTo(Samples.item(i));
        masters.add(cluster.masterOf("acl-app:" + key).port());
      }
      assertThat(masters).as("single keys on each of the three masters").hasSize(3);

      Map<String, Item> bulk = items(1_000, 3_000);
      cache.putAll(bulk);
      assertThat(cache.getAll(bulk.keySet())).isEqualTo(bulk);
      for (RedisServer master : cluster.masters()) {
        assertThat((List<?>) master.reply("KEYS", "acl-app:1*"))
            .as("putAll wrote to port %d", master.port())
            .isNotEmpty();
      }
      assertThat(cache.deleteAll(bulk.keySet())).isEqualTo(3_000);
      assertThat(cache.getAll(bulk.keySet())).isEmpty();

      Feed<Item> feed = stowage.feed("acl-app-feed", Item.class).build();
      long first = feed.add(Samples.item(1));
      long second = feed.add(Samples.item(2));
      assertThat(feed.page(1, 10)).extracting(Feed.Entry::score).containsExactly(second, first);
    }
  }

  /**
   * As on one server, a refused password is a {@link StowageException} of its own (not {@link
   * CacheUnavailableException}: trying again will not help), although Lettuce's cluster client
   * reports it as one seed's failure while reading the topology; the message carries the node's
   * {@code WRONGPASS} reply and not the password.
   */
  @Test
  void aWrongPasswordFailsBuildWithTheNodesWrongpassReply(RedisClusterSet cluster) {
    userOnEveryNode(cluster, "checked", List.of("on", ">right-password", "~*", "+@all"));
    int port = cluster.nodes().get(0).port();

    assertThatThrownBy(
            () ->
                Stowage.builder()
                    .redisCluster(seed(cluster, 0, "checked", "not-the-password"))
                    .build())
        .isInstanceOf(StowageException.class)
        .isNotInstanceOf(CacheUnavailableException.class)
        .hasMessage(
            "Redis at cluster 127.0.0.1:"
                + port
                + " refused the credentials: WRONGPASS invalid username-password pair or user is disabled.")
        .hasMessageNotContaining("not-the-password");
    try (Stowage stowage =
        Stowage.builder().redisCluster(seed(cluster, 0, "checked", "right-password")).build()) {
      stowage.cache("acl-checked", Item.class).build().put("1", Samples.item(1));
      assertThat(ClusterNodes.exists(cluster, "acl-checked:1")).isTrue();
    }
  }

  @Test
  void aUserWithTheRulesTheReadmeNamesForAClusterIsRefusedNothing(RedisClusterSet cluster) {
    List<String> rules =
        new ArrayList<>(
            List.of("on", ">minimal-secret", "~acl-min:*", "~{acl-min-feed}*", "~stowage:*"));
    rules.addAll(CLUSTER_RULES);
    userOnEveryNode(cluster, "minimal", rules);
    resetRefusals(cluster);

    try (Stowage stowage =
        Stowage.builder().redisCluster(seed(cluster, 2, "minimal", "minimal-secret")).build()) {
      RedisCache<String, Item> cache =
          stowage
              .cache("acl-min", Item.class)
              .ttl(Duration.ofMinutes(10))
              .distributedLoadLock(Duration.ofSeconds(5))
              .build();
      cache.put("1", Samples.item(1));
      assertThat(cache.get("1")).isEqualTo(Samples.item(1));
      assertThat(cache.getOrLoad("2", key -> Samples.item(2))).isEqualTo(Samples.item(2));
      Map<String, Item> bulk = items(100, 2_000);
      cache.putAll(bulk);
      assertThat(cache.getAll(bulk.keySet())).isEqualTo(bulk);
      assertThat(cache.deleteAll(bulk.keySet())).isEqualTo(2_000);
      assertThat(cache.exists("1")).isTrue();
      assertThat(cache.delete("1")).isTrue();

      Feed<Item> feed = stowage.feed("acl-min-feed", Item.class).build();
      List<Long> scores = feed.addAll(Samples.items(70));
      List<Long> newest = new ArrayList<>(scores.subList(65, 70));
      Collections.reverse(newest);
      assertThat(feed.page(1, 5)).extracting(Feed.Entry::score).containsExactlyElementsOf(newest);

      // The same user is refused what its rules leave out, with the server's message.
      RedisCache<String, Item> other = stowage.cache("acl-other", Item.class).build();
      assertThatThrownBy(() -> other.get("1"))
          .isInstanceOf(StowageException.class)
          .isNotInstanceOf(CacheUnavailableException.class)
          .hasMessageContaining(" refused GET (GET acl-other:1 of cache 'acl-other'): NOPERM");
    }
    assertThat(refusals(cluster))
        .as("only the key the rules leave out was refused, on its master")
        .singleElement()
        .asString()
        .contains("acl-other:1");
  }

  /**
   * Why each rule beyond one server's is there: without {@code cluster|nodes} the client cannot
   * read the topology and {@code build()} fails; with it alone everything works, but every node
   * logs the topology refresh's {@code INFO} and the connections' {@code CLUSTER MYID} as refused.
   */
  @Test
  void theOneServerRulesAreNotEnoughOnACluster(RedisClusterSet cluster) {
    List<String> oneServer =
        List.of(
            "on",
            ">narrow-secret",
            "~acl-narrow:*",
            "~stowage:*",
            "+@read",
            "+@write",
            "+@scripting",
            "+@connection");
    userOnEveryNode(cluster, "narrow", oneServer);
    assertThatThrownBy(
            () ->
                Stowage.builder().redisCluster(seed(cluster, 0, "narrow", "narrow-secret")).build())
        .isInstanceOf(StowageException.class)
        .isNotInstanceOf(CacheUnavailableException.class)
        .hasMessageStartingWith(
            "Redis at cluster 127.0.0.1:"
                + cluster.nodes().get(0).port()
                + " refused to set up the connection: NOPERM")
        .hasMessageContaining("cluster|nodes");

    List<String> withNodes = new ArrayList<>(oneServer);
    withNodes.add("+cluster|nodes");
    userOnEveryNode(cluster, "narrow", withNodes);
    resetRefusals(cluster);
    try (Stowage stowage =
        Stowage.builder().redisCluster(seed(cluster, 0, "narrow", "narrow-secret")).build()) {
      RedisCache<String, Item> cache = stowage.cache("acl-narrow", Item.class).build();
      Map<String, Item> bulk = items(0, 500);
      cache.putAll(bulk);
      assertThat(cache.getAll(bulk.keySet())).isEqualTo(bulk);
    }
    String refused = String.join("\n", refusals(cluster));
    assertThat(refused).contains("object, info,").contains("object, cluster|myid,");
  }
}
