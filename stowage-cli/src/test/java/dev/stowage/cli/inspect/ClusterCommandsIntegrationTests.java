package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.cli.StowageCli;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.testkit.WithRedisCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code scan}, {@code dict list} and {@code inspect} on a Redis Cluster, with {@code
 * --redis-cluster}.
 */
@WithRedisCluster
class ClusterCommandsIntegrationTests {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    var cli = StowageCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void scanAndDictListWalkEveryMasterAndInspectFollowsTheKeyToItsNode(RedisClusterSet cluster)
      throws Exception {
    Map<String, Note> notes = new LinkedHashMap<>();
    for (int i = 0; i < 1_500; i++) {
      notes.put(
          Integer.toString(i),
          new Note(i, "note " + i, "a note kept in the cache of a cluster, number " + i, i));
    }
    long dictionary;
    try (Stowage stowage = Stowage.builder().redisCluster(cluster.seedUri()).build()) {
      RedisCache<String, Note> cache = stowage.cache("notes", Note.class).build();
      cache.putAll(notes);
      dictionary = cache.compression().dictionaryId().orElseThrow();
    }
    Set<Integer> masters = new HashSet<>();
    for (int i = 0; i < 30; i++) {
      masters.add(cluster.masterOf("notes:" + i).port());
    }
    assertThat(masters).as("the notes are on every master").hasSize(3);
    // A seed that serves none of the keys inspected below: the others are found through it.
    String seed = cluster.uris().get(cluster.uris().size() - 1);

    assertThat(run("scan", "--json", "--redis-cluster", seed, "--match", "notes:*"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("keys").asInt()).isEqualTo(1_500);
    assertThat(report.get("complete").asBoolean()).isTrue();

    assertThat(run("dict", "list", "--json", "--redis-cluster", seed, "--match", "notes:*"))
        .as(err.toString())
        .isZero();
    JsonNode list = MAPPER.readTree(out.toString());
    assertThat(list.get("valuesScanned").asInt()).isEqualTo(1_500);
    assertThat(list.get("dictionaries").findValuesAsText("id"))
        .contains(String.format("%08x", dictionary));

    for (String key : new String[] {"notes:0", "notes:1", "notes:2", "notes:1499"}) {
      assertThat(run("inspect", "--json", "--redis-cluster", seed, key))
          .as(err.toString())
          .isZero();
      JsonNode inspected = MAPPER.readTree(out.toString()).get(0);
      assertThat(inspected.get("type").asText()).isEqualTo("string");
      assertThat(inspected.get("value").toString())
          .as("compact MessagePack: the record's values in order")
          .contains("\"note " + key.substring("notes:".length()) + "\"");
    }

    assertThat(run("scan", "--redis", seed, "--redis-cluster", seed, "--match", "*")).isEqualTo(2);
    assertThat(err.toString()).contains("--redis and --redis-cluster name two servers; pass one");
  }
}
