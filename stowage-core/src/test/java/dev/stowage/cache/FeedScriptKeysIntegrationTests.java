package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Feed;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.feed.RedisFeed;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Every key a feed's script touches arrives in its {@code KEYS}, as Redis asks (a cluster routes a
 * script by them): {@code MONITOR} shows each script's {@code EVALSHA} or {@code EVAL} with its
 * keys, then each command the script runs, and every key those commands name must be among them.
 * The operations cover every script: appends that fill and seal buckets, writes into sealed buckets
 * (which open them), removals, deep pages, counts, clears and the counter's scripts.
 */
@WithRedis
class FeedScriptKeysIntegrationTests {
  private static final List<BoardRecord> RECORDS = Samples.boards(300);

  /** Commands whose every argument is a key. */
  private static final Set<String> ALL_KEYS = Set.of("DEL", "UNLINK", "EXISTS", "MGET");

  @Test
  void everyKeyAFeedScriptTouchesIsInItsKeys(RedisServer redis) throws Exception {
    try (Socket socket = new Socket(redis.host(), redis.port());
        Stowage stowage = Stowage.builder().redis(redis.uri()).build()) {
      List<List<String>> monitored = new ArrayList<>();
      OutputStream out = socket.getOutputStream();
      out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
      assertThat(in.readLine()).isEqualTo("+OK");
      Thread reader =
          new Thread(
              () -> {
                try {
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    List<String> parsed = parse(line);
                    synchronized (monitored) {
                      monitored.add(parsed);
                    }
                  }
                } catch (IOException closed) {
                  // the socket closed at the end of the test
                }
              },
              "monitor");
      reader.setDaemon(true);
      reader.start();

      Feed<BoardRecord> feed =
          stowage.feed("keys", BoardRecord.class).chunkSize(50).sealFullBuckets(true).build();
      for (int i = 0; i < 140; i++) {
        feed.add(RECORDS.get(i));
      }
      ((RedisFeed<BoardRecord>) feed.async()).sealsSettled().join();
      assertThat(redis.command("EXISTS", "keys:s:0")).isEqualTo(":1");
      Map<Long, BoardRecord> edits = new LinkedHashMap<>();
      edits.put(5L, RECORDS.get(200));
      edits.put(70L, RECORDS.get(201));
      edits.put(500L, RECORDS.get(202));
      feed.putAll(edits);
      assertThat(feed.remove(3)).isTrue();
      assertThat(feed.remove(100)).isTrue();
      feed.putAll(Map.of(3L, RECORDS.get(203)));
      feed.addAll(RECORDS.subList(0, 120));
      assertThat(feed.page(1, 10)).hasSize(10);
      assertThat(feed.page(4, 50)).isNotEmpty();
      assertThat(feed.size()).isEqualTo(140 + 1 - 2 + 1 + 120);
      assertThat(feed.async().reserveScores(3, 0).join()).isPresent();
      assertThat(feed.async().raiseCounter(1000).join()).isEqualTo(1000);
      feed.add(RECORDS.get(250));
      feed.clear();
      assertThat(feed.size()).isZero();
      ((RedisFeed<BoardRecord>) feed.async()).sealsSettled().join();

      redis.command("ECHO", "end-of-feed-scripts");
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                synchronized (monitored) {
                  return monitored.stream()
                      .anyMatch(c -> c.size() == 2 && c.get(1).equals("end-of-feed-scripts"));
                }
              });

      List<String> undeclared = new ArrayList<>();
      Set<String> declared = new HashSet<>();
      Set<String> scriptCommands = new HashSet<>();
      synchronized (monitored) {
        for (List<String> command : monitored) {
          if (command.isEmpty()) {
            continue;
          }
          String name = command.get(0).toUpperCase(Locale.ROOT);
          if (command.get(command.size() - 1).equals("\u0000lua")) {
            scriptCommands.add(name);
            for (String key : keysOf(name, command.subList(1, command.size() - 1))) {
              if (!declared.contains(key)) {
                undeclared.add(name + " " + key);
              }
            }
          } else if (name.equals("EVALSHA") || name.equals("EVAL")) {
            int count = Integer.parseInt(command.get(2));
            declared = new HashSet<>(command.subList(3, 3 + count));
          }
        }
      }
      assertThat(undeclared).isEmpty();
      // Each script's kind of work ran: appends and puts, sealing and opening, pages, counts,
      // clears.
      assertThat(scriptCommands)
          .contains(
              "RPUSH", "LINSERT", "SET", "GET", "DEL", "LRANGE", "LLEN", "ZREVRANGE", "UNLINK")
          .contains("HINCRBY", "PTTL", "ZRANGEBYSCORE");
    }
  }

  /** The keys a command run by a script names. */
  private static List<String> keysOf(String name, List<String> args) {
    if (args.isEmpty()) {
      return List.of();
    }
    return ALL_KEYS.contains(name) ? args : List.of(args.get(0));
  }

  /**
   * A {@code MONITOR} line's command and arguments, with {@code "\0lua"} appended when a script ran
   * it: {@code 1700000000.000000 [0 lua] "RPUSH" "key" "value"}.
   */
  private static List<String> parse(String line) {
    List<String> parts = new ArrayList<>();
    int i = line.indexOf('"');
    boolean lua = line.substring(0, Math.max(0, i)).contains(" lua]");
    while (i >= 0 && i < line.length()) {
      StringBuilder part = new StringBuilder();
      int j = i + 1;
      while (j < line.length() && line.charAt(j) != '"') {
        char c = line.charAt(j);
        if (c == '\\' && j + 1 < line.length()) {
          char next = line.charAt(j + 1);
          if (next == 'x' && j + 3 < line.length()) {
            part.append((char) Integer.parseInt(line.substring(j + 2, j + 4), 16));
            j += 4;
            continue;
          }
          part.append(next);
          j += 2;
          continue;
        }
        part.append(c);
        j++;
      }
      parts.add(part.toString());
      i = line.indexOf('"', j + 1);
    }
    if (lua) {
      parts.add("\u0000lua");
    }
    return parts;
  }
}
