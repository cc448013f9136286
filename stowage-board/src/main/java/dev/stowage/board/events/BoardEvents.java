package dev.stowage.board.events;

import static java.util.Objects.requireNonNull;

import dev.stowage.board.protocol.Board;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay: publishes the outbox's pending events to Kafka, in score order, and marks them sent
 * once the broker has acknowledged them.
 *
 * <p>One thread reads up to {@value #BATCH} pending events below the {@link ScoreGate}'s bound,
 * sends them in order with an idempotent producer ({@code enable.idempotence=true}, {@code
 * acks=all}, at most 5 requests in flight, so that retries neither duplicate nor reorder within a
 * partition), waits until every one is acknowledged, and only then marks them sent. Every event has
 * the key {@value #BOARD} (the service's one board, the seed's), so all of them go to one partition
 * and arrive in score order. Delivery is at least once: a relay that dies after the broker
 * acknowledged and before the mark publishes those events again after a restart, so consumers
 * deduplicate by the event's post id.
 *
 * <p>While the broker is down, the producer retries with a backoff up to {@value
 * #RECONNECT_BACKOFF_MAX_MS} ms and never gives up on a batch it holds; new events wait in the
 * outbox, and the service keeps accepting posts. {@link #status()} tells how many wait and for how
 * long; past {@link BoardEventOptions#backlogLimit()} it says so, and the relay logs a warning.
 *
 * <p>Thread-safe.
 */
public final class BoardEvents implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BoardEvents.class);

  /** The key of every event: the board, of which the service has one (the seed's {@code board}). */
  public static final String BOARD = "board";

  /** How often {@link #status()}'s counts are read from the outbox. */
  public static final Duration STATUS_REFRESH = Duration.ofSeconds(1);

  /** Events read and sent at a time. */
  static final int BATCH = 500;

  static final int RECONNECT_BACKOFF_MAX_MS = 1000;

  /** How long {@code send} may wait for the topic's metadata (the broker down at start). */
  private static final int MAX_BLOCK_MS = 5000;

  private static final Duration DATABASE_TIMEOUT = Duration.ofSeconds(30);
  private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long MAX_BACKOFF_MILLIS = 5000;

  private final EventOutbox outbox;
  private final ScoreGate gate;
  private final BoardEventOptions options;
  private final Function<Board, byte[]> postJson;
  private final KafkaProducer<String, byte[]> producer;
  private final Thread relay;
  private final ScheduledExecutorService statusReader;
  private final AtomicLong published = new AtomicLong();
  private volatile EventStatus status;
  private volatile @Nullable String lastError;
  private volatile boolean running = true;
  private volatile boolean warnedOverLimit;

  private BoardEvents(
      EventOutbox outbox,
      ScoreGate gate,
      BoardEventOptions options,
      Function<Board, byte[]> postJson) {
    this.outbox = outbox;
    this.gate = gate;
    this.options = options;
    this.postJson = postJson;
    this.status = new EventStatus(0, Duration.ZERO, options.backlogLimit(), 0, null);
    this.producer =
        new KafkaProducer<>(
            producerConfig(options), new StringSerializer(), new ByteArraySerializer());
    this.relay = new Thread(this::relayLoop, "board-events-relay");
    relay.setDaemon(true);
    this.statusReader =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "board-events-status");
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Starts relaying the events of {@code outbox}. Returns at once: the broker need not be up.
   *
   * @param gate the gate every write of the store goes through
   * @param postJson a post's JSON object, as the API returns it
   */
  public static BoardEvents start(
      EventOutbox outbox,
      ScoreGate gate,
      BoardEventOptions options,
      Function<Board, byte[]> postJson) {
    BoardEvents events =
        new BoardEvents(
            requireNonNull(outbox, "outbox"),
            requireNonNull(gate, "gate"),
            requireNonNull(options, "options"),
            requireNonNull(postJson, "postJson"));
    gate.onSettled(events::wake);
    events.relay.start();
    var unusedTask =
        events.statusReader.scheduleWithFixedDelay(
            events::readStatus, 0, STATUS_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    log.info("relaying board events to {} topic {}", options.bootstrapServers(), options.topic());
    return events;
  }

  /** What the relay runs with. */
  public BoardEventOptions options() {
    return options;
  }

  /** The relay's state now: what a health indicator reports. */
  public EventStatus status() {
    return status;
  }

  /** The producer's settings: idempotent, every replica's acknowledgement, retried without end. */
  static Map<String, Object> producerConfig(BoardEventOptions options) {
    return Map.ofEntries(
        Map.entry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers()),
        Map.entry(ProducerConfig.CLIENT_ID_CONFIG, "stowage-board-events"),
        Map.entry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
        Map.entry(ProducerConfig.ACKS_CONFIG, "all"),
        Map.entry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5),
        Map.entry(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE),
        // A batch is never expired while the broker is away: an expired batch would let a later
        // one through first. The relay waits instead, and the outbox holds what is new.
        Map.entry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE),
        Map.entry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000),
        Map.entry(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS),
        Map.entry(ProducerConfig.LINGER_MS_CONFIG, 5),
        Map.entry(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100),
        Map.entry(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, RECONNECT_BACKOFF_MAX_MS),
        Map.entry(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 100),
        Map.entry(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, RECONNECT_BACKOFF_MAX_MS));
  }

  private void wake() {
    LockSupport.unpark(relay);
  }

  private void relayLoop() {
    long backoff = 100;
    while (running) {
      try {
        if (relayOnce() == 0) {
          LockSupport.parkNanos(this, IDLE_WAIT_NANOS);
        }
        backoff = 100;
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | ExecutionException e) {
        if (!running) {
          return;
        }
        Throwable cause =
            e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String error = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        if (!error.equals(lastError)) {
          log.warn(
              "board events wait in the outbox: {}; retrying every {} ms at most",
              error,
              MAX_BACKOFF_MILLIS);
        }
        lastError = error;
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(backoff));
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
  }

  /**
   * Publishes one batch of pending events and marks those the broker acknowledged, in order.
   * Returns how many were published.
   */
  private int relayOnce() throws InterruptedException, ExecutionException {
    long bound = gate.bound();
    List<Board> batch = outbox.pending(bound, BATCH).collectList().block(DATABASE_TIMEOUT);
    if (batch == null || batch.isEmpty()) {
      return 0;
    }
    // Waits for the topic's metadata (up to max.block.ms) before handing anything over: a send
    // that fails for want of it returns a failed future while the next one may get through,
    // which would put a later event first.
    producer.partitionsFor(options.topic());
    List<Future<RecordMetadata>> acks = new ArrayList<>(batch.size());
    RuntimeException sendFailure = null;
    for (Board post : batch) {
      Future<RecordMetadata> ack;
      try {
        ack =
            producer.send(
                new ProducerRecord<>(
                    options.topic(),
                    BOARD,
                    PostCreatedEvent.encode(BOARD, post, postJson.apply(post))));
      } catch (RuntimeException e) {
        sendFailure = e;
        break;
      }
      acks.add(ack);
      if (ack.isDone()) {
        // Failed at once (metadata gone meanwhile, a record too large): send nothing after it.
        try {
          ack.get();
        } catch (ExecutionException e) {
          break;
        }
      }
    }
    int acknowledged = 0;
    ExecutionException ackFailure = null;
    for (Future<RecordMetadata> ack : acks) {
      try {
        ack.get();
        acknowledged++;
      } catch (ExecutionException e) {
        ackFailure = e;
        break;
      }
    }
    if (acknowledged > 0) {
      outbox.sent(batch.subList(0, acknowledged)).block(DATABASE_TIMEOUT);
      published.addAndGet(acknowledged);
      lastError = null;
    }
    if (ackFailure != null) {
      throw ackFailure;
    }
    if (sendFailure != null) {
      throw sendFailure;
    }
    return acknowledged;
  }

  private void readStatus() {
    try {
      EventOutbox.Backlog backlog = outbox.backlog().block(DATABASE_TIMEOUT);
      if (backlog == null) {
        return;
      }
      Duration age =
          backlog.pending() == 0
              ? Duration.ZERO
              : Duration.ofMillis(
                  Math.max(0, System.currentTimeMillis() - backlog.oldestCreatedMillis()));
      EventStatus now =
          new EventStatus(
              backlog.pending(), age, options.backlogLimit(), published.get(), lastError);
      status = now;
      if (now.overLimit() && !warnedOverLimit) {
        log.warn(
            "{} board events wait in the outbox, over the backlog limit of {} (oldest {} s):"
                + " posts are still accepted; bring Kafka at {} back or raise"
                + " stowage.board.kafka.backlog-limit",
            now.pending(),
            options.backlogLimit(),
            age.toSeconds(),
            options.bootstrapServers());
      }
      warnedOverLimit = now.overLimit();
    } catch (RuntimeException e) {
      log.debug("could not read the outbox's backlog: {}", e.toString());
    }
  }

  /** Stops relaying; pending events stay in the outbox for the next start. */
  @Override
  public void close() {
    running = false;
    gate.onSettled(null);
    statusReader.shutdownNow();
    relay.interrupt();
    try {
      relay.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofSeconds(1));
  }
}
