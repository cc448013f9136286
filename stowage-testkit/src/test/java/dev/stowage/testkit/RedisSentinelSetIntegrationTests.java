package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.embedded.RedisSentinelSet;
import dev.stowage.embedded.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

@WithRedisSentinel
class RedisSentinelSetIntegrationTests {

  @Test
  void aMasterAReplicaAndThreeSentinelsOnEphemeralPorts(RedisSentinelSet redis) {
    assertThat(redis.sentinels()).hasSize(3);
    StringBuilder expected = new StringBuilder("redis-sentinel://");
    for (RedisServer sentinel : redis.sentinels()) {
      assertThat(sentinel.port()).isNotEqualTo(6379).isNotEqualTo(26379);
      expected
          .append(expected.length() > "redis-sentinel://".length() ? "," : "")
          .append("127.0.0.1:")
          .append(sentinel.port());
      assertThat(sentinel.reply("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"))
          .isEqualTo(List.of("127.0.0.1", Integer.toString(redis.master().port())));
    }
    assertThat(redis.uri()).isEqualTo(expected + "#mymaster");
    assertThat(redis.masterName()).isEqualTo(RedisSentinelSet.MASTER_NAME).isEqualTo("mymaster");
    assertThat(redis.master().port()).isNotEqualTo(redis.replica().port()).isNotEqualTo(6379);
    assertThat(redis.replica().port()).isNotEqualTo(6379);
  }

  @Test
  void theReplicaFollowsTheMaster(RedisSentinelSet redis) {
    redis.master().reply("SET", "replicated", "yes");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(redis.replica().reply("GET", "replicated")).isEqualTo("yes"));
    assertThat(redis.replica().reply("ROLE")).asList().first().isEqualTo("slave");
  }

  @Test
  void failoverPromotesTheReplicaAndTheFormerMasterFollowsIt(RedisSentinelSet redis) {
    RedisServer former = redis.master();
    RedisServer replica = redis.replica();
    former.reply("SET", "before-failover", "kept");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(replica.reply("GET", "before-failover")).isEqualTo("kept"));

    RedisServer promoted = redis.failover();

    assertThat(promoted).isSameAs(replica);
    assertThat(redis.master()).isSameAs(promoted);
    assertThat(redis.replica()).isSameAs(former);
    for (RedisServer sentinel : redis.sentinels()) {
      assertThat(sentinel.reply("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"))
          .isEqualTo(List.of("127.0.0.1", Integer.toString(promoted.port())));
    }
    assertThat(promoted.reply("ROLE")).asList().first().isEqualTo("master");
    assertThat(former.reply("ROLE")).asList().first().isEqualTo("slave");
    assertThat(promoted.reply("GET", "before-failover")).isEqualTo("kept");
    promoted.reply("SET", "after-failover", "new");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(former.reply("GET", "after-failover")).isEqualTo("new"));

    assertThat(redis.failover()).as("a second failover goes back").isSameAs(former);
    assertThat(redis.master()).isSameAs(former);
  }

  @Test
  void closeStopsEveryProcess() {
    RedisSentinelSet own = RedisSentinelSet.start(1);
    List<RedisServer> all = List.of(own.master(), own.replica(), own.sentinels().get(0));
    assertThat(all).allMatch(RedisServer::isRunning);
    own.close();
    assertThat(all).noneMatch(RedisServer::isRunning);
  }
}
