package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic's events as a consumer would, and checks what a deduplicating consumer sees. */
final class TopicEvents {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One record of the topic: its key and offset, and the event's fields. */
  record Event(String key, long offset, int version, String id, long score, JsonNode post) {}

  private TopicEvents() {}

  /** Every event of the topic's one partition, from the first to the end offset now. */
  static List<Event> readAll(String bootstrapServers, String topic) {
    List<Event> events = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", bootstrapServers, "isolation.level", "read_committed"),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      TopicPartition partition = new TopicPartition(topic, 0);
      List<TopicPartition> partitions = List.of(partition);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long end = consumer.endOffsets(partitions, Duration.ofSeconds(30)).get(partition);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (consumer.position(partition, Duration.ofSeconds(30)) < end) {
        assertThat(System.nanoTime())
            .as("read %s to offset %d in 60 s", topic, end)
            .isLessThan(deadline);
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          events.add(parse(record));
        }
      }
    }
    return events;
  }

  private static Event parse(ConsumerRecord<String, byte[]> record) {
    try {
      JsonNode value = JSON.readTree(record.value());
      return new Event(
          record.key(),
          record.offset(),
          value.get("version").asInt(),
          value.get("id").asText(),
          value.get("score").asLong(),
          value.get("post"));
    } catch (IOException e) {
      throw new UncheckedIOException("event at offset " + record.offset() + " is not JSON", e);
    }
  }

  /** The events a consumer keeps when it drops every event whose post id it has seen. */
  static List<Event> deduplicated(List<Event> events) {
    Set<String> seen = new HashSet<>();
    List<Event> kept = new ArrayList<>();
    for (Event event : events) {
      if (seen.add(event.id())) {
        kept.add(event);
      }
    }
    return kept;
  }

  /** Asserts that the events of each key come in ascending score order. */
  static void assertScoreOrderPerKey(List<Event> events) {
    Map<String, Long> last = new HashMap<>();
    for (Event event : events) {
      Long previous = last.put(event.key(), event.score());
      if (previous != null) {
        assertThat(event.score())
            .as(
                "score of the event at offset %d, key %s, after %d",
                event.offset(), event.key(), previous)
            .isGreaterThan(previous);
      }
    }
  }
}
