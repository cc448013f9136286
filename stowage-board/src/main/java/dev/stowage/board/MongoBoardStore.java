package dev.stowage.board;

import com.mongodb.ConnectionString;
import com.mongodb.MongoBulkWriteException;
import com.mongodb.client.model.Accumulators;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.InsertManyOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import com.mongodb.reactivestreams.client.MongoClient;
import com.mongodb.reactivestreams.client.MongoClients;
import com.mongodb.reactivestreams.client.MongoCollection;
import dev.stowage.board.events.EventOutbox;
import dev.stowage.board.events.ScoreGate;
import dev.stowage.board.protocol.Board;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.ReactiveCollectionCallback;
import org.springframework.data.mongodb.core.ReactiveMongoTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link BoardStore} on MongoDB, through Spring Data MongoDB's {@link ReactiveMongoTemplate} on
 * the official reactive driver: collection {@value #COLLECTION}, one document per post in the
 * seed's shape ({@code _id} the post's id as an ObjectId, then {@code member_id}, {@code score},
 * the text fields, {@code modified_at} and {@code created_at} as dates and {@code created_ts}),
 * with a unique index on {@code score} beside the unique {@code _id}, as the relational table is
 * keyed by score with the id unique. The template translates MongoDB's duplicate-key error (11000)
 * into Spring's {@code DuplicateKeyException}, a {@code DataIntegrityViolationException}, as the
 * relational stores reject a taken score or id.
 *
 * <p>With events, a post's pending event lives in the post's own document: field {@value #PENDING}
 * holds the post's score until the broker has acknowledged the event, and is then unset. A
 * single-document insert is atomic, so a post is never stored without its pending event, and no
 * transaction (nor replica set) is needed. A sparse index on {@value #PENDING} holds only the
 * pending posts, in score order, which is how the relay finds them.
 *
 * <p>Without transactions, a bulk is inserted with one ordered {@code insertMany}: when MongoDB
 * rejects one of its posts, those inserted before it are deleted again before the failure is
 * returned, so that a rejected bulk leaves nothing (the {@link ScoreGate} holds their events back
 * meanwhile). A process that dies between the two leaves them stored, as posts that were never
 * acknowledged.
 *
 * <p>Thread-safe.
 */
public final class MongoBoardStore implements BoardStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MongoBoardStore.class);

  /** The collection of posts. */
  public static final String COLLECTION = "board";

  /** The database when the URL names none. */
  public static final String DEFAULT_DATABASE = "board";

  /** The field that holds a post's score while its event is pending. */
  public static final String PENDING = "event_pending";

  private static final ZoneId ZONE = ZoneId.systemDefault();

  private final ReactiveMongoTemplate template;
  private final @Nullable MongoClient client;
  private final boolean events;
  private final ScoreGate gate = new ScoreGate();

  private MongoBoardStore(
      ReactiveMongoTemplate template, @Nullable MongoClient client, boolean events) {
    this.template = template;
    this.client = client;
    this.events = events;
  }

  /**
   * A store on the database {@code url} names ({@value #DEFAULT_DATABASE} when it names none), with
   * its own client, closed by {@link #close()}. Connects lazily: an unreachable server fails the
   * first operation, not this call.
   *
   * @param url {@code mongodb://host:port/database} or {@code mongodb+srv://…}, with the driver's
   *     options
   * @param events whether every insert writes its posts' pending events
   * @throws IllegalArgumentException if {@code url} is not a MongoDB connection string
   */
  public static MongoBoardStore connect(String url, boolean events) {
    ConnectionString connection;
    try {
      connection = new ConnectionString(url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "not a MongoDB URL: "
              + url
              + " ("
              + e.getMessage()
              + "); give mongodb://host:port/database, such as mongodb://127.0.0.1:27017/board",
          e);
    }
    String database =
        connection.getDatabase() == null ? DEFAULT_DATABASE : connection.getDatabase();
    MongoClient client = MongoClients.create(connection);
    return new MongoBoardStore(new ReactiveMongoTemplate(client, database), client, events);
  }

  /** A store on {@code template}'s database, whose client the caller closes. */
  public static MongoBoardStore on(ReactiveMongoTemplate template, boolean events) {
    return new MongoBoardStore(template, null, events);
  }

  /** Completes when the server answers a {@code ping} command; fails otherwise. */
  public Mono<Void> ping() {
    return template.executeCommand(new Document("ping", 1)).then();
  }

  /**
   * Whether {@code url} names a MongoDB database ({@code mongodb://} or {@code mongodb+srv://}).
   */
  public static boolean isMongoUrl(@Nullable String url) {
    if (url == null) {
      return false;
    }
    String lower = url.strip().toLowerCase(Locale.ROOT);
    return lower.startsWith("mongodb://") || lower.startsWith("mongodb+srv://");
  }

  /**
   * Creates the collection's indexes when they do not exist: {@code score} unique, and with events
   * {@value #PENDING} sparse. ({@code _id} is unique in every collection.)
   */
  @Override
  public Mono<Void> createSchema() {
    Mono<Void> score =
        execute(
                posts ->
                    posts.createIndex(
                        Indexes.ascending("score"), new IndexOptions().unique(true).name("score")))
            .then();
    if (!events) {
      return score;
    }
    return score.then(
        execute(
                posts ->
                    posts.createIndex(
                        Indexes.ascending(PENDING), new IndexOptions().sparse(true).name(PENDING)))
            .then());
  }

  @Override
  public boolean events() {
    return events;
  }

  @Override
  public ScoreGate gate() {
    return gate;
  }

  @Override
  public Mono<Void> insertAll(List<Board> boards) {
    if (boards.isEmpty()) {
      return Mono.empty();
    }
    List<Document> documents = new ArrayList<>(boards.size());
    for (Board board : boards) {
      documents.add(write(board, events));
    }
    return execute(
            posts ->
                Flux.from(posts.insertMany(documents, new InsertManyOptions().ordered(true)))
                    .onErrorResume(
                        MongoBulkWriteException.class,
                        e -> removeInserted(posts, boards, e).then(Mono.error(e))))
        .then();
  }

  /**
   * Deletes the posts an ordered {@code insertMany} stored before the one MongoDB rejected: their
   * ids were free, so they are this call's.
   */
  private static Mono<Void> removeInserted(
      MongoCollection<Document> posts, List<Board> boards, MongoBulkWriteException failure) {
    int inserted =
        failure.getWriteErrors().isEmpty() ? 0 : failure.getWriteErrors().get(0).getIndex();
    if (inserted <= 0) {
      return Mono.empty();
    }
    List<ObjectId> ids = new ArrayList<>(inserted);
    for (int i = 0; i < inserted; i++) {
      ids.add(new ObjectId(boards.get(i).id()));
    }
    return Mono.from(posts.deleteMany(Filters.in("_id", ids)))
        .doOnError(
            e ->
                log.error(
                    "a rejected bulk left {} of its posts stored ({}); delete"
                        + " _id {} from {} by hand",
                    inserted,
                    e.toString(),
                    ids,
                    COLLECTION))
        .onErrorResume(e -> Mono.empty())
        .then();
  }

  @Override
  public Flux<Board> pending(long below, int limit) {
    return execute(
            posts ->
                posts.find(Filters.lt(PENDING, below)).sort(Sorts.ascending(PENDING)).limit(limit))
        .map(MongoBoardStore::read);
  }

  @Override
  public Mono<Void> sent(List<Board> sentPosts) {
    if (sentPosts.isEmpty()) {
      return Mono.empty();
    }
    List<ObjectId> ids = new ArrayList<>(sentPosts.size());
    for (Board post : sentPosts) {
      ids.add(new ObjectId(post.id()));
    }
    return execute(posts -> posts.updateMany(Filters.in("_id", ids), Updates.unset(PENDING)))
        .then();
  }

  @Override
  public Mono<EventOutbox.Backlog> backlog() {
    return execute(
            posts ->
                posts.aggregate(
                    List.of(
                        Aggregates.match(Filters.exists(PENDING)),
                        Aggregates.group(
                            null,
                            Accumulators.sum("pending", 1L),
                            Accumulators.min("oldest", "$created_ts")))))
        .next()
        .map(group -> new EventOutbox.Backlog(number(group, "pending"), number(group, "oldest")))
        .defaultIfEmpty(new EventOutbox.Backlog(0, 0));
  }

  @Override
  public Flux<Board> page(long offset, int limit) {
    // The service's pages end at BoardLimits.MAX_PAGE × MAX_PAGE_SIZE, well within an int.
    return execute(
            posts ->
                posts
                    .find()
                    .sort(Sorts.descending("score"))
                    .skip(Math.toIntExact(offset))
                    .limit(limit))
        .map(MongoBoardStore::read);
  }

  @Override
  public Flux<Board> all() {
    return execute(posts -> posts.find().sort(Sorts.ascending("score"))).map(MongoBoardStore::read);
  }

  @Override
  public Mono<Board> findById(String id) {
    if (!ObjectId.isValid(id)) {
      return Mono.empty();
    }
    return execute(posts -> posts.find(Filters.eq("_id", new ObjectId(id))).first())
        .next()
        .map(MongoBoardStore::read);
  }

  @Override
  public Mono<Long> maxScore() {
    return execute(
            posts ->
                posts
                    .find()
                    .sort(Sorts.descending("score"))
                    .projection(Projections.include("score"))
                    .first())
        .next()
        .map(document -> number(document, "score"))
        .defaultIfEmpty(0L);
  }

  @Override
  public Mono<Long> count() {
    return execute(posts -> posts.countDocuments()).next();
  }

  /** Closes the client {@link #connect} made; nothing for a store {@link #on} a template. */
  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
  }

  /** Runs {@code action} on the collection, through the template, which translates failures. */
  private <T> Flux<T> execute(ReactiveCollectionCallback<T> action) {
    return template.execute(COLLECTION, action);
  }

  /** The post's document in the seed's shape, with its pending event when {@code pending}. */
  static Document write(Board b, boolean pending) {
    Document document =
        new Document("_id", new ObjectId(b.id()))
            .append("member_id", b.memberId())
            .append("score", b.score())
            .append("title", b.title())
            .append("body", b.body())
            .append("address", b.address())
            .append("country", b.country())
            .append("job", b.job())
            .append("credit", b.credit())
            .append("ssn", b.ssn())
            .append("company", b.company())
            .append("phone_number", b.phoneNumber())
            .append("modified_at", date(b.modifiedAt()))
            .append("created_at", date(b.createdAt()))
            .append("created_ts", b.createdTs());
    if (pending) {
      document.append(PENDING, b.score());
    }
    return document;
  }

  private static Board read(Document d) {
    return new Board(
        d.getObjectId("_id").toHexString(),
        number(d, "score"),
        number(d, "member_id"),
        d.getString("title"),
        d.getString("body"),
        d.getString("address"),
        d.getString("country"),
        d.getString("job"),
        d.getString("credit"),
        d.getString("ssn"),
        d.getString("company"),
        d.getString("phone_number"),
        localDateTime(d.getDate("modified_at")),
        localDateTime(d.getDate("created_at")),
        number(d, "created_ts"));
  }

  /** A number field as a long, whether stored as a 32- or 64-bit integer. */
  private static long number(Document document, String field) {
    Object value = document.get(field);
    if (!(value instanceof Number number)) {
      throw new IllegalStateException(
          "document "
              + document.get("_id")
              + " in "
              + COLLECTION
              + " has no number in "
              + field
              + " but "
              + value
              + "; it was not written by the board");
    }
    return number.longValue();
  }

  /** As Spring Data MongoDB converts a {@code LocalDateTime}: in the default time zone. */
  private static Date date(LocalDateTime at) {
    return Date.from(at.atZone(ZONE).toInstant());
  }

  private static LocalDateTime localDateTime(Date date) {
    return LocalDateTime.ofInstant(date.toInstant(), ZONE);
  }
}
