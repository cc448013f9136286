package dev.stowage.board.events;

import static java.util.Objects.requireNonNull;

/**
 * Where and how the relay publishes: the broker, the topic and the backlog limit. Immutable; from
 * {@link #builder(String)}.
 */
public final class BoardEventOptions {
  /** The topic unless another is given. */
  public static final String DEFAULT_TOPIC = "board-events";

  /** Pending events at which the relay's status says it is over its limit, unless set. */
  public static final long DEFAULT_BACKLOG_LIMIT = 100_000;

  private final String bootstrapServers;
  private final String topic;
  private final long backlogLimit;

  private BoardEventOptions(Builder builder) {
    this.bootstrapServers = builder.bootstrapServers;
    this.topic = builder.topic;
    this.backlogLimit = builder.backlogLimit;
  }

  /**
   * Options publishing to the brokers {@code bootstrapServers}, such as {@code
   * 127.0.0.1:9092,10.0.0.2:9092}.
   *
   * @throws IllegalArgumentException if it is blank
   */
  public static Builder builder(String bootstrapServers) {
    return new Builder(bootstrapServers);
  }

  /** The brokers, as Kafka's {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The topic events go to ({@value #DEFAULT_TOPIC} by default). */
  public String topic() {
    return topic;
  }

  /**
   * The number of pending events from which {@link EventStatus#overLimit()} is true and the relay
   * logs a warning. Posts are still accepted beyond it: the limit warns, it does not refuse.
   */
  public long backlogLimit() {
    return backlogLimit;
  }

  @Override
  public String toString() {
    return "BoardEventOptions["
        + bootstrapServers
        + ", topic "
        + topic
        + ", backlog limit "
        + backlogLimit
        + "]";
  }

  /** Builds {@link BoardEventOptions}; validates as each value is set. */
  public static final class Builder {
    private final String bootstrapServers;
    private String topic = DEFAULT_TOPIC;
    private long backlogLimit = DEFAULT_BACKLOG_LIMIT;

    private Builder(String bootstrapServers) {
      requireNonNull(bootstrapServers, "bootstrapServers");
      if (bootstrapServers.isBlank()) {
        throw new IllegalArgumentException(
            "Kafka's bootstrap servers are host:port[,host:port],"
                + " such as 127.0.0.1:9092; got an empty string");
      }
      this.bootstrapServers = bootstrapServers.strip();
    }

    /**
     * The topic.
     *
     * @throws IllegalArgumentException if it is not a legal Kafka topic name
     */
    public Builder topic(String topic) {
      requireNonNull(topic, "topic");
      if (!topic.matches("[a-zA-Z0-9._-]{1,249}")) {
        throw new IllegalArgumentException(
            "a Kafka topic is 1 to 249 of a-z, A-Z, 0-9, '.', '_'"
                + " and '-', such as board-events; got '"
                + topic
                + "'");
      }
      this.topic = topic;
      return this;
    }

    /**
     * The backlog limit; see {@link BoardEventOptions#backlogLimit()}.
     *
     * @throws IllegalArgumentException if it is below 1
     */
    public Builder backlogLimit(long limit) {
      if (limit < 1) {
        throw new IllegalArgumentException(
            "the event backlog limit must be at least 1, got " + limit);
      }
      this.backlogLimit = limit;
      return this;
    }

    /** The options. */
    public BoardEventOptions build() {
      return new BoardEventOptions(this);
    }
  }
}
