package dev.stowage.board;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.board.events.ScoreGate;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.BoardIds;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import io.r2dbc.spi.R2dbcDataIntegrityViolationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataIntegrityViolationException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Stowage mode: cache-aside over the database of record, built on stowage-core's public API only.
 *
 * <p><b>Redis.</b> One {@link Stowage}, connecting in the background, so the service starts and
 * serves from the database while Redis is unreachable. The posts are a core {@link Feed} of their
 * JSON fragments ({@link Codecs#jsonBytes()}) under {@value BoardKeys#FEED}, scored by the feed's
 * counter {@value BoardKeys#COUNTER}/{@value BoardKeys#COUNTER_FIELD}, compressed as {@link
 * FeedCompression} says. The feed is trusted only while the entry {@value BoardKeys#COMPLETE} of a
 * core {@link RedisCache} exists: its {@code getOrLoad} loader refills the feed from the database,
 * so concurrent readers share one refill (and processes too, through the cache's distributed load
 * lock), and its presence is the mark that the feed is complete. On a Redis Cluster ({@link
 * #onCluster}) the same keys carry the hash tag {@code {board}} ({@link BoardKeys}).
 *
 * <p><b>Writes</b> go to the database first; only then to the feed. When the feed write fails, the
 * post is still acknowledged, this process counts the feed stale and deletes the mark, so the next
 * read refills it. Scores come from {@link BoardScores}: the feed's counter, restored above every
 * score handed out when Redis lost it; while Redis is unreachable, a count in the process above the
 * database's highest score and every score handed out. A score that turns out to be taken (the
 * unique key says so) is re-reserved after raising the counters to the database's highest score.
 * Nothing acknowledged is lost: an acknowledgement follows a committed insert.
 *
 * <p><b>Reads</b> come from the feed while it is complete, else after a refill, else (Redis
 * unreachable, a post that cannot be read) from the database. With the near cache, the feed keeps
 * pages in the process while Redis says it has not changed ({@link Feed.Builder#nearCache}); a kept
 * page is the same {@code List} for every reader, so the response bodies made from it are kept with
 * it and made once. Thread-safe.
 */
public final class StowageBoardService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StowageBoardService.class);

  /** How long one Redis round trip may take before the caller falls back to the database. */
  public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

  /** Stored bytes of the pages the feed keeps in the process, at most (the near cache). */
  public static final long NEAR_CACHE_BYTES = 16L << 20;

  /** Bytes of the response bodies kept with those pages, at most. */
  public static final long KEPT_BODY_BYTES = 64L << 20;

  /** Posts per {@code putAll} while refilling. */
  static final int REFILL_CHUNK = 1000;

  /** The longest the database may take to give the next posts to a refill. */
  static final Duration REFILL_READ_TIMEOUT = Duration.ofMinutes(1);

  /** How long a process's refill holds the lock that makes the others wait for it. */
  static final Duration REFILL_LOCK = Duration.ofSeconds(60);

  private static final int INSERT_ATTEMPTS = 8;

  private final Stowage stowage;
  private final Placement placement;
  private final Feed<byte[]> feed;
  private final RedisCache<String, Long> complete;
  private final BoardStore repository;
  private final BoardFormats formats;
  private final BoardScores scores;
  private final ExecutorService refills;

  /**
   * Response bodies of the pages the feed keeps, by the identity of the kept list; null without a
   * near cache.
   */
  private final @Nullable Cache<PageRequest, KeptPage> keptPages;

  /** Feed writes that failed in this process. */
  private final AtomicLong failedWrites = new AtomicLong();

  /** The failed writes that a refill begun after them has repaired. */
  private final AtomicLong repairedWrites = new AtomicLong();

  /** A page the feed keeps, with the response bodies made from it. */
  private record KeptPage(List<Feed.Entry<byte[]>> entries, Page page) {}

  /** Where the feed, its counter and its mark live: the seed's keys, or under one hash tag. */
  private record Placement(String feed, String counter, String completePrefix) {
    static final Placement ONE_SERVER =
        new Placement(BoardKeys.FEED, BoardKeys.COUNTER, BoardKeys.COMPLETE_PREFIX);
    static final Placement CLUSTER =
        new Placement(
            BoardKeys.CLUSTER_FEED, BoardKeys.CLUSTER_COUNTER, BoardKeys.CLUSTER_COMPLETE_PREFIX);

    String complete() {
      return completePrefix + BoardKeys.COMPLETE_ENTRY;
    }
  }

  /**
   * Connects to Redis (in the background: the service answers from the database until Redis does)
   * and builds the feed and its mark of completeness.
   *
   * @param redisUri such as {@code redis://127.0.0.1:6390}
   * @param nearCache whether pages are kept in this process while Redis says the feed has not
   *     changed; without it every read goes to Redis
   * @throws IllegalArgumentException if the URI is malformed
   * @throws StowageException if Redis refuses the credentials
   */
  public StowageBoardService(
      String redisUri,
      BoardStore repository,
      BoardFormats formats,
      FeedCompression compression,
      boolean nearCache) {
    this(
        Stowage.builder()
            .redis(redisUri)
            .commandTimeout(COMMAND_TIMEOUT)
            .connectInBackground()
            .build(),
        Placement.ONE_SERVER,
        repository,
        formats,
        compression,
        nearCache);
  }

  /**
   * Connects to a Redis Cluster through {@code seeds} (any of its nodes; in the background, as on
   * one server) and builds the feed and its mark under the hash tag {@code {board}} ({@link
   * BoardKeys#CLUSTER_FEED}, {@link BoardKeys#CLUSTER_COUNTER}, {@link
   * BoardKeys#CLUSTER_COMPLETE}), so that every script of the feed touches one slot and the mark
   * and the page are read from the same master, one after the other. With {@code nearCache}, pages
   * are kept in memory as on one server; core's near cache on a cluster tracks the feed's keys on
   * every master. While the master of that slot is down, the service behaves as while Redis is
   * unreachable: it serves from the database, counts scores in the process, and refills the feed
   * once a replica has taken over.
   *
   * @param seeds URIs of the cluster's nodes, such as {@code redis://10.0.0.1:6379}; at least one
   * @throws IllegalArgumentException if there is no seed, or one is malformed
   */
  public static StowageBoardService onCluster(
      List<String> seeds,
      BoardStore repository,
      BoardFormats formats,
      FeedCompression compression,
      boolean nearCache) {
    Stowage stowage =
        Stowage.builder()
            .redisCluster(seeds.toArray(String[]::new))
            .commandTimeout(COMMAND_TIMEOUT)
            .connectInBackground()
            .build();
    return new StowageBoardService(
        stowage, Placement.CLUSTER, repository, formats, compression, nearCache);
  }

  private StowageBoardService(
      Stowage stowage,
      Placement placement,
      BoardStore repository,
      BoardFormats formats,
      FeedCompression compression,
      boolean nearCache) {
    this.repository = repository;
    this.formats = formats;
    this.stowage = stowage;
    this.placement = placement;
    AtomicInteger threads = new AtomicInteger();
    this.refills =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "board-refill-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    try {
      Feed.Builder<byte[]> posts =
          stowage
              .feed(BoardKeys.FEED, byte[].class)
              .key(placement.feed())
              .encoding(compression.apply(Encoding.of(Codecs.jsonBytes())))
              .counter(placement.counter(), BoardKeys.COUNTER_FIELD);
      RedisCache.Builder<String, Long> mark =
          stowage
              .cache("board-complete", Long.class)
              .keyPrefix(placement.completePrefix())
              .encoding(Encoding.of(Codecs.json(Long.class)).compression(Compression.none()))
              .noExpiry()
              .distributedLoadLock(REFILL_LOCK)
              .loadExecutor(refills);
      if (nearCache) {
        posts.nearCache(NearCache.maximumWeight(NEAR_CACHE_BYTES));
        this.keptPages =
            Caffeine.newBuilder()
                .maximumWeight(KEPT_BODY_BYTES)
                .weigher((PageRequest request, KeptPage kept) -> weight(kept.page()))
                .build();
      } else {
        this.keptPages = null;
      }
      this.feed = posts.build();
      this.complete = mark.build();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    this.scores =
        new BoardScores(
            BoardScores.Counter.of(
                feed.async(), placement.counter() + "/" + BoardKeys.COUNTER_FIELD),
            repository);
  }

  /** Creates posts (stored in one transaction) and returns them with their ids and scores. */
  public Mono<List<Board>> create(List<NewBoard> inputs) {
    return repository
        .writing(ticket -> persist(inputs, 1, ticket))
        .flatMap(boards -> store(boards).thenReturn(boards));
  }

  /** Reserves scores, tells them to the events' gate (with events), and inserts. */
  private Mono<List<Board>> persist(
      List<NewBoard> inputs, int attempt, ScoreGate.@Nullable Ticket ticket) {
    return reserve(inputs.size())
        .flatMap(
            first -> {
              if (ticket != null) {
                ticket.scored(first, first + inputs.size() - 1);
              }
              long now = System.currentTimeMillis();
              List<Board> boards = new ArrayList<>(inputs.size());
              for (int i = 0; i < inputs.size(); i++) {
                boards.add(Board.create(inputs.get(i), first + i, now));
              }
              return repository.insertAll(boards).thenReturn(boards);
            })
        .onErrorResume(
            StowageBoardService::isTakenScore,
            e -> {
              if (attempt >= INSERT_ATTEMPTS) {
                return Mono.error(e);
              }
              log.info(
                  "score taken (counter behind the database); resynchronising, attempt {}",
                  attempt);
              return resynchronise().then(persist(inputs, attempt + 1, ticket));
            });
  }

  /** Reserves {@code count} consecutive scores and returns the first. */
  private Mono<Long> reserve(int count) {
    return scores
        .reserve(count)
        .onErrorResume(StowageBoardService::isRedisFailure, e -> scores.reserveLocally(count));
  }

  /** After a score was found taken: raises both counters to the database's highest score. */
  private Mono<Void> resynchronise() {
    return scores
        .restoreCounter()
        .onErrorResume(StowageBoardService::isRedisFailure, e -> Mono.empty())
        .then();
  }

  /**
   * Adds committed posts to the feed at their scores. A bulk write is encoded off the caller's
   * thread: the one that completes the feed's samples learns its dictionary before it returns.
   * Never fails: a failed write makes the feed stale.
   */
  private Mono<Void> store(List<Board> boards) {
    Mono<Void> write =
        Mono.defer(
            () -> {
              Map<Long, byte[]> byScore = new LinkedHashMap<>();
              for (Board board : boards) {
                byScore.put(board.score(), formats.toJson(board));
              }
              return Mono.fromFuture(feed.async().putAll(byScore));
            });
    if (boards.size() > 1) {
      write = write.subscribeOn(Schedulers.boundedElastic());
    }
    return write.onErrorResume(
        e -> {
          feedWriteFailed(e);
          return Mono.empty();
        });
  }

  /** This process repairs the feed at its next read; other processes once the mark is gone. */
  private void feedWriteFailed(Throwable failure) {
    failedWrites.incrementAndGet();
    log.warn(
        "feed write failed after the database commit; the next read refills the feed: {}",
        unwrap(failure).toString());
    var unusedStage =
        complete
            .async()
            .delete(BoardKeys.COMPLETE_ENTRY)
            .whenComplete(
                (deleted, e) -> {
                  if (e != null) {
                    log.debug(
                        "could not delete {} now: {}", placement.complete(), unwrap(e).toString());
                  }
                });
  }

  /**
   * A page, newest first: from the feed while it is complete, else after a refill, else from the
   * database.
   *
   * <p>The feed is read after its mark was found, in this order: the mark's {@code GET} and the
   * page's script go out one after the other on the one connection that every cache and feed of the
   * {@link Stowage} shares (on a cluster, on the connection to the master of the slot that the mark
   * and the feed share), so a page read in one round trip was read while the mark existed. With the
   * near cache, a page the feed keeps (the same list again) whose reading this service found so is
   * answered at once with the bodies it made; any other list is only taken once the mark has been
   * found after it was read.
   */
  @SuppressWarnings("ReferenceEquality") // the very entries a kept page was made from
  public Mono<Page> page(PageRequest request) {
    return Mono.defer(
            () -> {
              if (failedWrites.get() != repairedWrites.get()) {
                return Mono.fromFuture(() -> complete.async().delete(BoardKeys.COMPLETE_ENTRY))
                    .then(refillThenRead(request));
              }
              if (keptPages == null) {
                return markThenPage(request);
              }
              CompletableFuture<List<Feed.Entry<byte[]>>> entries =
                  feed.async().page(request.page(), request.size());
              if (entries.isDone() && !entries.isCompletedExceptionally()) {
                KeptPage kept = keptPages.getIfPresent(request);
                if (kept != null && kept.entries() == entries.join()) {
                  return Mono.just(kept.page());
                }
              }
              // A read from Redis, or a list kept from a read not checked yet: check the mark after
              // it.
              return Mono.fromFuture(entries)
                  .onErrorResume(e -> Mono.empty())
                  .then(markThenPage(request));
            })
        .onErrorResume(
            e -> {
              log.debug(
                  "reading page {} of {} from the database: {}",
                  request.page(),
                  request.size(),
                  unwrap(e).toString());
              return repository
                  .page(request.offset(), request.size())
                  .map(formats::toJson)
                  .collectList()
                  .map(Page::new);
            });
  }

  /**
   * The mark's {@code GET}, then the page, in one round trip; a refill first when the mark is
   * missing.
   */
  private Mono<Page> markThenPage(PageRequest request) {
    return Mono.defer(
        () -> {
          long failures = feed.decodeFailures();
          CompletableFuture<Long> mark = complete.async().get(BoardKeys.COMPLETE_ENTRY);
          CompletableFuture<List<Feed.Entry<byte[]>>> entries =
              feed.async().page(request.page(), request.size());
          return Mono.fromFuture(
                  mark.thenCombine(entries, (found, read) -> found == null ? null : read))
              .map(read -> page(request, read, failures))
              .switchIfEmpty(refillThenRead(request));
        });
  }

  /**
   * Refills the feed unless the mark is present (one refill for every concurrent reader, and for
   * every process that waits on the lock), then reads the page.
   */
  private Mono<Page> refillThenRead(PageRequest request) {
    return Mono.defer(
            () ->
                Mono.fromFuture(
                    complete.async().getOrLoad(BoardKeys.COMPLETE_ENTRY, entry -> refill())))
        .then(
            Mono.defer(
                () -> {
                  long failures = feed.decodeFailures();
                  return Mono.fromFuture(feed.async().page(request.page(), request.size()))
                      .map(entries -> page(request, entries, failures));
                }));
  }

  /**
   * The page made of {@code entries}: the one kept with them when the feed kept them (the same
   * list), else a new one.
   *
   * @throws IllegalStateException if the feed skipped a post it could not decode meanwhile, so that
   *     the page may lack it
   */
  @SuppressWarnings("ReferenceEquality") // the very entries a kept page was made from
  private Page page(PageRequest request, List<Feed.Entry<byte[]>> entries, long failuresBefore) {
    if (keptPages != null) {
      KeptPage kept = keptPages.getIfPresent(request);
      if (kept != null && kept.entries() == entries) {
        return kept.page();
      }
    }
    // A full page skipped nothing; a short one may have, if the feed counted a failure meanwhile.
    if (entries.size() < request.size() && feed.decodeFailures() != failuresBefore) {
      throw new IllegalStateException("the feed holds a post it cannot decode (see the log)");
    }
    List<byte[]> fragments = new ArrayList<>(entries.size());
    for (Feed.Entry<byte[]> entry : entries) {
      fragments.add(entry.value());
    }
    Page page = new Page(fragments);
    if (keptPages != null) {
      keptPages.put(request, new KeptPage(entries, page));
    }
    return page;
  }

  /** What a kept page and its bodies take, about: the fragments, and two bodies of their size. */
  private static int weight(Page page) {
    long bytes = 0;
    for (byte[] fragment : page.fragments()) {
      bytes += fragment.length;
    }
    return (int) Math.min(Integer.MAX_VALUE, 3 * bytes + 64);
  }

  /**
   * The loader of the mark: stores every post of the database in the feed at its score (replacing
   * what is there), raises the counter to the highest score handed out, and returns the highest
   * score stored; the cache then stores the mark. Runs on a refill thread, and blocks.
   */
  private Long refill() {
    long failedBefore = failedWrites.get();
    long started = System.nanoTime();
    long stored = 0;
    long highest = 0;
    try (Stream<List<Board>> chunks =
        repository.all().timeout(REFILL_READ_TIMEOUT).buffer(REFILL_CHUNK).toStream(2)) {
      Iterator<List<Board>> next = chunks.iterator();
      while (next.hasNext()) {
        List<Board> chunk = next.next();
        Map<Long, byte[]> byScore = new LinkedHashMap<>();
        for (Board board : chunk) {
          byScore.put(board.score(), formats.toJson(board));
          highest = Math.max(highest, board.score());
        }
        feed.putAll(byScore);
        stored += chunk.size();
      }
      scores.restoreCounter().block(COMMAND_TIMEOUT.multipliedBy(4));
    } catch (RuntimeException e) {
      log.warn(
          "refilling the feed failed after {} posts; reads come from the database until a"
              + " refill succeeds: {}",
          stored,
          unwrap(e).toString());
      throw e;
    }
    repairedWrites.accumulateAndGet(failedBefore, Math::max);
    log.info(
        "feed refilled from the database: {} posts up to score {} in {} ms",
        stored,
        highest,
        (System.nanoTime() - started) / 1_000_000);
    return highest;
  }

  /**
   * The JSON fragment of the post {@code id}, read from the database (a feed is read by page, not
   * by score); empty for an id that is not 24 hex digits, which names no post.
   */
  public Mono<byte[]> byId(String id) {
    if (BoardIds.scoreOf(id) < 0) {
      return Mono.empty();
    }
    return repository.findById(id).map(formats::toJson);
  }

  /** Closes the connection to Redis. */
  @Override
  public void close() {
    try {
      stowage.close();
    } finally {
      refills.shutdownNow();
    }
  }

  /**
   * Sends {@code PING} to Redis and waits, at most {@link #COMMAND_TIMEOUT}: for the health
   * endpoint. Blocks.
   *
   * @return how long the answer took
   * @throws StowageException if Redis is unreachable, not reached yet, or does not answer in time
   */
  Duration pingRedis() {
    return stowage.ping();
  }

  /** Redis as messages name it, such as {@code 127.0.0.1:6390}. */
  String redisAddress() {
    return stowage.address();
  }

  static boolean isTakenScore(Throwable e) {
    return e instanceof DataIntegrityViolationException
        || e instanceof R2dbcDataIntegrityViolationException;
  }

  /** Whether {@code e} is Redis failing (unreachable, too slow, refusing), not the database. */
  static boolean isRedisFailure(Throwable e) {
    Throwable cause = unwrap(e);
    return cause instanceof StowageException || cause instanceof BoardScores.CounterLostException;
  }

  private static Throwable unwrap(Throwable e) {
    Throwable cause = e;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
