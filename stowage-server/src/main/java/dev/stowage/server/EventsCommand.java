package dev.stowage.server;

import dev.stowage.board.events.BoardEventOptions;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stowage events}: prints the board's events (what {@code serve --kafka} publishes), one
 * JSON object a line, until interrupted, {@code --max} events or {@code --timeout}. Reads every
 * partition of the topic with no consumer group, so it commits nothing and disturbs no one.
 */
@Command(
    name = "events",
    mixinStandardHelpOptions = true,
    description = "Print the board's events from Kafka, one JSON line each, until interrupted.")
public final class EventsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--kafka",
      required = true,
      paramLabel = "HOST:PORT[,...]",
      description = "The brokers, such as 127.0.0.1:9092 (serve prints its own).")
  String kafka;

  @Option(
      names = "--topic",
      defaultValue = BoardEventOptions.DEFAULT_TOPIC,
      paramLabel = "TOPIC",
      description = "The events' topic (default: ${DEFAULT-VALUE}).")
  String topic;

  @Option(
      names = "--from-beginning",
      description = "Start with the oldest event the topic keeps, not with the next one.")
  boolean fromBeginning;

  @Option(names = "--max", paramLabel = "N", description = "Stop after N events.")
  Long max;

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      description = "Stop after this long (default: run until interrupted).")
  Double timeout;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if ((max != null && max < 1) || (timeout != null && !(timeout > 0))) {
      err.println("events: --max and --timeout must be above 0");
      err.flush();
      return 2;
    }
    long deadline =
        timeout == null ? Long.MAX_VALUE : System.nanoTime() + Math.round(timeout * 1e9);
    long printed = 0;
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                kafka,
                "client.id",
                "stowage-events",
                "enable.auto.commit",
                "false",
                "allow.auto.create.topics",
                "false"),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      Thread main = Thread.currentThread();
      Thread wakeup = new Thread(consumer::wakeup, "stowage-events-interrupted");
      Runtime.getRuntime().addShutdownHook(wakeup);
      try {
        List<TopicPartition> partitions = awaitPartitions(consumer, deadline);
        if (partitions.isEmpty()) {
          err.println("events: no topic " + topic + " on " + kafka + " before the timeout");
          err.flush();
          return 1;
        }
        consumer.assign(partitions);
        if (fromBeginning) {
          consumer.seekToBeginning(partitions);
        } else {
          consumer.seekToEnd(partitions);
        }
        while (System.nanoTime() < deadline && (max == null || printed < max)) {
          for (ConsumerRecord<String, byte[]> record : consumer.poll(pollTime(deadline))) {
            out.println(new String(record.value(), StandardCharsets.UTF_8));
            printed++;
            if (max != null && printed >= max) {
              break;
            }
          }
          out.flush();
        }
      } catch (WakeupException e) {
        // Interrupted (Ctrl-C): what was printed stands.
      } finally {
        out.flush();
        if (Thread.currentThread() == main) {
          try {
            Runtime.getRuntime().removeShutdownHook(wakeup);
          } catch (IllegalStateException e) {
            // The JVM is exiting already.
          }
        }
      }
    }
    return 0;
  }

  /** The topic's partitions, asked again until it exists or the deadline passes. */
  private List<TopicPartition> awaitPartitions(
      KafkaConsumer<String, byte[]> consumer, long deadline) {
    while (true) {
      List<PartitionInfo> found = consumer.partitionsFor(topic, Duration.ofSeconds(5));
      if (found != null && !found.isEmpty()) {
        List<TopicPartition> partitions = new ArrayList<>();
        found.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
        return partitions;
      }
      if (System.nanoTime() >= deadline) {
        return List.of();
      }
      // Not subscribed yet, so poll() cannot be the pause: wait a little before asking again.
      try {
        Thread.sleep(pollTime(deadline).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return List.of();
      }
    }
  }

  private static Duration pollTime(long deadline) {
    long left = deadline - System.nanoTime();
    return Duration.ofNanos(Math.max(0, Math.min(left, 500_000_000L)));
  }
}
