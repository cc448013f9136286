package dev.stowage.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.StowageInternals;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ACL users ({@code ACL SETUSER}) that Redis refuses, or that lack what Stowage needs. */
@WithRedis
class AclIntegrationTests {

  private static void user(RedisServer redis, String name, String... rules) {
    String[] command = new String[3 + rules.length];
    command[0] = "ACL";
    command[1] = "SETUSER";
    command[2] = name;
    System.arraycopy(rules, 0, command, 3, rules.length);
    assertThat(redis.reply(command)).isEqualTo("OK");
  }

  private static String uri(RedisServer redis, String user, String password) {
    return "redis://" + user + ":" + password + "@127.0.0.1:" + redis.port();
  }

  @Test
  void aWrongPasswordSaysRedisRefusedTheCredentials(RedisServer redis) {
    user(redis, "app", "on", ">right", "~*", "+@all");

    assertThatThrownBy(() -> Stowage.builder().redis(uri(redis, "app", "wrong")).build())
        .isInstanceOf(StowageException.class)
        .isNotInstanceOf(CacheUnavailableException.class)
        .hasMessageStartingWith(
            "Redis at 127.0.0.1:" + redis.port() + " refused the credentials: WRONGPASS");
    try (Stowage stowage = Stowage.builder().redis(uri(redis, "app", "right")).build()) {
      stowage.cache("acl-app", Item.class).build().put("1", Samples.item(1));
      assertThat(redis.reply("EXISTS", "acl-app:1")).isEqualTo(1L);
    }
  }

  @Test
  void aDisabledUserIsRefusedLikeAWrongPassword(RedisServer redis) {
    user(redis, "disabled", "off", ">secret", "~*", "+@all");

    assertThatThrownBy(() -> Stowage.builder().redis(uri(redis, "disabled", "secret")).build())
        .isInstanceOf(StowageException.class)
        .hasMessageStartingWith(
            "Redis at 127.0.0.1:" + redis.port() + " refused the credentials: WRONGPASS");
  }

  @Test
  void aUserWithTheRulesTheReadmeNamesCanUseCachesFeedsAndDictionaries(RedisServer redis) {
    user(
        redis,
        "minimal",
        "on",
        ">secret",
        "~readme-items:*",
        "~readme-feed",
        "~readme-feed:*",
        "~counter",
        "~stowage:*",
        "+@read",
        "+@write",
        "+@scripting",
        "+@connection");

    try (Stowage stowage = Stowage.builder().redis(uri(redis, "minimal", "secret")).build()) {
      RedisCache<String, Item> items = stowage.cache("readme-items", Item.class).build();
      items.put("1", Samples.item(1));
      items.putAll(Map.of("2", Samples.item(2), "3", Samples.item(3)));
      assertThat(items.getAll(List.of("1", "2", "3"))).hasSize(3);
      assertThat(items.getOrLoad("4", key -> Samples.item(4))).isEqualTo(Samples.item(4));
      items.deleteAll(List.of("1", "2"));
      assertThat(items.get("1")).isNull();

      Feed<BoardRecord> feed = stowage.feed("readme-feed", BoardRecord.class).build();
      feed.addAll(Samples.boards(3));
      assertThat(feed.page(1, 10)).hasSize(3);
    }
    // A dictionary learned from 100 values, recorded under stowage:learned:… and stowage:dict:…, by
    // another process (within one Stowage, readme-items:boards: would overlap readme-items:).
    try (Stowage stowage = Stowage.builder().redis(uri(redis, "minimal", "secret")).build()) {
      RedisCache<String, BoardRecord> boards =
          stowage
              .cache("readme-items", BoardRecord.class)
              .keyPrefix("readme-items:boards:")
              .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(100, 16 * 1024))
              .build();
      Map<String, BoardRecord> values = new LinkedHashMap<>();
      Samples.boards(110).forEach(board -> values.put(board.id(), board));
      boards.putAll(values);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(StowageInternals.dictionaries(stowage).list()).isNotEmpty());
      assertThat(boards.getAll(values.keySet())).isEqualTo(values);
    }
  }

  @Test
  void aUserWithoutACommandStowageNeedsGetsTheCommandAndTheServersMessage(RedisServer redis) {
    user(redis, "noscripts", "on", ">secret", "~*", "+@all", "-evalsha");

    try (Stowage stowage = Stowage.builder().redis(uri(redis, "noscripts", "secret")).build()) {
      RedisCache<String, Item> items =
          stowage.cache("acl-noscripts", Item.class).ttl(Duration.ofMinutes(5)).build();
      items.put("1", Samples.item(1));
      assertThat(items.get("1")).as("SET and GET are allowed").isEqualTo(Samples.item(1));

      assertThatThrownBy(() -> items.putAll(Map.of("2", Samples.item(2), "3", Samples.item(3))))
          .isInstanceOf(StowageException.class)
          .isNotInstanceOf(CacheUnavailableException.class)
          .hasMessageStartingWith(
              "Redis at 127.0.0.1:"
                  + redis.port()
                  + " refused EVALSHA (SET PX of 2 keys of cache 'acl-noscripts'): NOPERM")
          .hasMessageContaining("'evalsha'");
      Feed<BoardRecord> feed = stowage.feed("acl-feed", BoardRecord.class).build();
      assertThatThrownBy(() -> feed.add(Samples.board(1)))
          .isInstanceOf(StowageException.class)
          .hasMessageContaining(" refused EVALSHA (")
          .hasMessageContaining("NOPERM");
    }
  }

  @Test
  void aUserLimitedToOtherKeysGetsTheCommandAndTheServersMessage(RedisServer redis) {
    user(redis, "elsewhere", "on", ">secret", "~other:*", "+@all");

    try (Stowage stowage = Stowage.builder().redis(uri(redis, "elsewhere", "secret")).build()) {
      RedisCache<String, Item> items = stowage.cache("acl-elsewhere", Item.class).build();
      assertThatThrownBy(() -> items.get("1"))
          .isInstanceOf(StowageException.class)
          .hasMessageStartingWith(
              "Redis at 127.0.0.1:"
                  + redis.port()
                  + " refused GET (GET acl-elsewhere:1 of cache 'acl-elsewhere'): NOPERM");
      RedisCache<String, Item> allowed = stowage.cache("other", Item.class).build();
      allowed.put("1", Samples.item(1));
      assertThat(allowed.get("1")).isEqualTo(Samples.item(1));
    }
  }

  @Test
  void aUserThatMayNotSelectItsDatabaseSaysRedisRefusedTheConnectionsSetup(RedisServer redis) {
    user(redis, "noselect", "on", ">secret", "~*", "+@all", "-select");

    assertThatThrownBy(
            () -> Stowage.builder().redis(uri(redis, "noselect", "secret") + "/1").build())
        .isInstanceOf(StowageException.class)
        .isNotInstanceOf(CacheUnavailableException.class)
        .hasMessageStartingWith(
            "Redis at 127.0.0.1:" + redis.port() + " refused to set up the connection: NOPERM")
        .hasMessageContaining("'select'");
  }
}
