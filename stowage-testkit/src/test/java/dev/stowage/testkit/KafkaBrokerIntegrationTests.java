package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.embedded.KafkaBroker;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The broker of {@code @WithKafka}: it takes records compressed with zstd and lz4, which run on the
 * codec versions the root pom pins rather than those kafka-clients asks for, and it keeps what it
 * acknowledged across a SIGKILL and a restart on the same ports and data directory.
 */
@WithKafka
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class KafkaBrokerIntegrationTests {

  @Test
  void theCodecsOnTheClassPathAreTheProjectsAndTheBrokerTakesBatchesCompressedWithThem(
      KafkaBroker kafka) throws Exception {
    List<String> jars =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(path -> new File(path).getName())
            .toList();
    assertThat(jars)
        .contains(
            "zstd-jni-" + System.getProperty("zstd.version") + ".jar",
            "lz4-java-" + System.getProperty("lz4.version") + ".jar");
    assertThat(jars)
        .filteredOn(name -> name.startsWith("zstd-jni-") || name.startsWith("lz4-java-"))
        .hasSize(2);

    for (String compression : List.of("zstd", "lz4")) {
      String topic = "compressed-" + compression;
      List<String> sent = new ArrayList<>();
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      try (KafkaProducer<String, String> producer = producer(kafka, compression)) {
        for (int i = 0; i < 200; i++) {
          String value = compression + " value " + i + " " + "x".repeat(i);
          sent.add(value);
          acks.add(producer.send(new ProducerRecord<>(topic, "k", value)));
        }
        producer.flush();
      }
      for (Future<RecordMetadata> ack : acks) {
        assertThat(ack.get(30, TimeUnit.SECONDS).topic()).isEqualTo(topic);
      }
      assertThat(readAll(kafka, topic, sent.size())).as(compression).isEqualTo(sent);
    }
  }

  @Test
  void keepsAcknowledgedRecordsAcrossAKillAndARestartOnTheSamePorts(KafkaBroker kafka)
      throws Exception {
    String bootstrap = kafka.bootstrapServers();
    try (KafkaProducer<String, String> producer = producer(kafka, "none")) {
      producer
          .send(new ProducerRecord<>("survivors", "k", "before the kill"))
          .get(30, TimeUnit.SECONDS);
    }

    kafka.kill();
    assertThat(kafka.isRunning()).isFalse();
    kafka.restart();
    System.out.printf(
        "Kafka broker restarted after SIGKILL in %d ms%n", kafka.lastStartTime().toMillis());

    assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
    try (KafkaProducer<String, String> producer = producer(kafka, "none")) {
      producer
          .send(new ProducerRecord<>("survivors", "k", "after the restart"))
          .get(60, TimeUnit.SECONDS);
    }
    assertThat(readAll(kafka, "survivors", 2))
        .containsExactly("before the kill", "after the restart");
  }

  /**
   * The extension's broker runs C1 only: it lives seconds, and C2 would cost it 40% more CPU. Its
   * command line is read from /proc: ProcessHandle.Info gives no arguments for a command line
   * longer than 4,096 bytes, which a class path makes this one.
   */
  @Test
  void theTestsBrokerRunsWithTheJvmOptionsItWasGiven(KafkaBroker kafka) {
    String config = kafka.dataDirectory().resolveSibling("server.properties").toString();
    List<List<String>> brokers =
        ProcessHandle.current()
            .children()
            .map(KafkaBrokerIntegrationTests::commandLine)
            .filter(arguments -> arguments.contains(config))
            .toList();

    assertThat(brokers)
        .as(
            "this JVM's child processes running the broker's configuration, read from /proc (Linux)")
        .singleElement()
        .satisfies(
            arguments ->
                assertThat(arguments)
                    .containsSubsequence("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp")
                    .contains("kafka.Kafka"));
  }

  @Test
  void aJvmOptionThatIsNotAnOptionIsRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> KafkaBroker.start(List.of("-Xmx256m", "Xss1m")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a JVM option: 'Xss1m'");
  }

  /** The command line of a child process, from /proc; empty once it has exited. */
  private static List<String> commandLine(ProcessHandle process) {
    try {
      byte[] bytes = Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
      return List.of(new String(bytes, StandardCharsets.UTF_8).split("\0"));
    } catch (IOException e) {
      return List.of();
    }
  }

  private static KafkaProducer<String, String> producer(KafkaBroker kafka, String compression) {
    return new KafkaProducer<>(
        Map.of(
            "bootstrap.servers",
            kafka.bootstrapServers(),
            "acks",
            "all",
            "enable.idempotence",
            "true",
            "compression.type",
            compression,
            "linger.ms",
            "20"),
        new StringSerializer(),
        new StringSerializer());
  }

  /** Every value of partition 0 of {@code topic} from the start, once {@code count} have come. */
  private static List<String> readAll(KafkaBroker kafka, String topic, int count) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            new StringDeserializer(),
            new StringDeserializer())) {
      TopicPartition partition = new TopicPartition(topic, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (values.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          values.add(record.value());
        }
      }
    }
    return values;
  }
}
