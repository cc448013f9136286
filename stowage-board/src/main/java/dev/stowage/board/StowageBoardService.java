package dev.stowage.board;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.lettuce.core.ScoredValue;
import java.util.ArrayList;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.compress.ZstdDictionary;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataIntegrityViolationException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Stowage mode: cache-aside over the database of record, with the feed holding JSON fragments.
 *
 * <p>Writes go to the database first; only then to the feed. When the feed write fails, the post
 * is still acknowledged and the feed is marked stale, so the next read refills it. Scores come
 * from {@link BoardScores}: the Redis counter, restored above every score handed out when Redis
 * lost it; while Redis is unreachable, a count in the process above the database's highest score
 * and every score handed out. A score that turns out to be taken (the unique key says so) is
 * re-reserved after raising the counters to the database's highest score. Nothing acknowledged is
 * lost: an acknowledgement follows a committed insert.
 *
 * <p>Reads come from the feed while it is complete. When it is not (a cold or restarted Redis, or
 * a failed feed write), one refill from the database runs for all concurrent readers
 * (single-flight); when Redis is unreachable the page is read from the database. Thread-safe.
 */
public final class StowageBoardService {
  private static final Logger log = LoggerFactory.getLogger(StowageBoardService.class);
  private static final int INSERT_ATTEMPTS = 8;
  private static final int REFILL_CHUNK = 1000;

  /** Posts in the database before a dictionary is trained. */
  static final int TRAIN_AFTER_POSTS = 1000;
  /** Most posts a dictionary is trained on (the newest). */
  static final int TRAINING_SAMPLES = 2000;

  private final BoardFeed feed;
  private final BoardRepository repository;
  private final BoardFormats formats;
  private final FeedFormat format;
  private final AtomicLong writesSinceCheck = new AtomicLong();
  private final java.util.concurrent.atomic.AtomicBoolean training =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final Set<Long> loading = ConcurrentHashMap.newKeySet();
  private final BoardScores scores;
  private final AtomicLong staleGeneration = new AtomicLong();
  private volatile long repairedGeneration;
  private final AtomicReference<Mono<Void>> refill = new AtomicReference<>();
  private final boolean nearCache;
  /** Decoded pages, valid while the feed's generation is the one they were read at. */
  private final Cache<PageKey, NearPage> nearPages = Caffeine.newBuilder()
      .maximumSize(NEAR_PAGES).build();

  /** Pages kept in this process at most. */
  static final int NEAR_PAGES = 1024;

  private record PageKey(long offset, int size) {}

  private record NearPage(long generation, Page page) {}

  public StowageBoardService(BoardFeed feed, BoardRepository repository, BoardFormats formats,
      FeedFormat format) {
    this(feed, repository, formats, format, true);
  }

  /**
   * @param nearCache whether decoded pages are kept in this process while Redis says the feed has
   *     not changed; without it every read goes to Redis
   */
  public StowageBoardService(BoardFeed feed, BoardRepository repository, BoardFormats formats,
      FeedFormat format, boolean nearCache) {
    this.nearCache = nearCache;
    this.feed = feed;
    this.repository = repository;
    this.formats = formats;
    this.format = format;
    this.scores = new BoardScores(new BoardScores.Counter() {
      @Override
      public Mono<Long> reserve(int count, long floor) {
        return feed.reserveScores(count, floor);
      }

      @Override
      public Mono<Long> raise(long atLeast) {
        return feed.raiseCounter(atLeast);
      }
    }, repository);
    if (format.storage() == FeedFormat.Storage.ZSTD_DICT) {
      adoptRecordedDictionary();
    }
  }

  /** At start: uses the dictionary a previous run recorded in Redis, if any. Blocks. */
  private void adoptRecordedDictionary() {
    try {
      String hexId = feed.dictionaryId().block(BoardFeed.TIMEOUT.multipliedBy(2));
      if (hexId != null) {
        format.use(feed.dictionaryStore().resolve(Long.parseUnsignedLong(hexId, 16)));
        log.info("feed members are compressed with dictionary {}", hexId);
      }
    } catch (RuntimeException e) {
      log.warn("cannot load the feed's dictionary now ({}); will train or load it later",
          e.toString());
    }
  }

  /** The feed's storage format. */
  public FeedFormat format() {
    return format;
  }

  /** Creates posts (stored in one transaction) and returns them with their ids and scores. */
  public Mono<List<Board>> create(List<NewBoard> inputs) {
    return persist(inputs, 1).flatMap(boards -> cache(boards).thenReturn(boards));
  }

  private Mono<List<Board>> persist(List<NewBoard> inputs, int attempt) {
    return reserve(inputs.size()).flatMap(first -> {
      long now = System.currentTimeMillis();
      List<Board> boards = new ArrayList<>(inputs.size());
      for (int i = 0; i < inputs.size(); i++) {
        boards.add(Board.create(inputs.get(i), first + i, now));
      }
      return repository.insertAll(boards).thenReturn(boards);
    }).onErrorResume(StowageBoardService::isTakenScore, e -> {
      if (attempt >= INSERT_ATTEMPTS) {
        return Mono.error(e);
      }
      log.info("score taken (counter behind the database); resynchronising, attempt {}", attempt);
      return resynchronise().then(persist(inputs, attempt + 1));
    });
  }

  /** Reserves {@code count} consecutive scores and returns the first. */
  private Mono<Long> reserve(int count) {
    return scores.reserve(count)
        .onErrorResume(StowageBoardService::isRedisFailure, e -> scores.reserveLocally(count));
  }

  /** After a score was found taken: raises both counters to the database's highest score. */
  private Mono<Void> resynchronise() {
    return scores.restoreCounter().onErrorResume(StowageBoardService::isRedisFailure,
        e -> Mono.empty()).then();
  }

  private Mono<Void> cache(List<Board> boards) {
    List<ScoredValue<byte[]>> members = new ArrayList<>(boards.size());
    for (Board board : boards) {
      members.add(ScoredValue.just(board.score(), format.encode(formats.toJson(board))));
    }
    if (format.needsDictionary()
        && writesSinceCheck.addAndGet(boards.size()) >= TRAIN_AFTER_POSTS / 4) {
      writesSinceCheck.set(0);
      trainInBackground();
    }
    return feed.add(members).onErrorResume(e -> {
      staleGeneration.incrementAndGet();
      log.warn("feed write failed after the database commit; the next read refills the feed: {}",
          e.toString());
      return Mono.empty();
    });
  }

  /**
   * A page, newest first: from this process's near cache while Redis says the feed has not changed
   * since it was read (see {@link BoardFeed#generation()}), else from the feed, else from the
   * database.
   */
  public Mono<Page> page(long offset, int size) {
    PageKey key = new PageKey(offset, size);
    long generation = nearCache ? feed.generation() : -1;
    if (generation >= 0 && !isStale()) {
      NearPage near = nearPages.getIfPresent(key);
      if (near != null && near.generation() == generation) {
        return Mono.just(near.page());
      }
    }
    Mono<Page> fromCache = Mono.defer(() -> {
      if (isStale()) {
        return refill().then(cachedPage(offset, size, false)).map(Page::new);
      }
      return cachedPage(offset, size, true).map(Page::new).doOnNext(page -> {
        if (generation >= 0 && feed.generation() == generation) {
          nearPages.put(key, new NearPage(generation, page));
        }
      });
    });
    return fromCache.onErrorResume(e -> {
      log.debug("reading page from the database: {}", e.toString());
      return repository.page(offset, size).map(formats::toJson).collectList().map(Page::new);
    });
  }

  private Mono<List<byte[]>> cachedPage(long offset, int size, boolean mayRefill) {
    return feed.page(offset, size).flatMap(page -> {
      if (page.complete()) {
        return Mono.just(decode(page.members()));
      }
      if (mayRefill) {
        return refill().then(cachedPage(offset, size, false));
      }
      return Mono.error(new IllegalStateException("the feed is still incomplete after a refill"));
    });
  }

  /** The JSON fragment of the post {@code id}: from the feed, else from the database. */
  public Mono<byte[]> byId(String id) {
    long score = BoardIds.scoreOf(id);
    if (score < 0) {
      return Mono.empty();
    }
    byte[] expected = ("{\"id\":\"" + id + "\"").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return feed.byScore(score).map(this::decodeOne)
        .filter(fragment -> startsWith(fragment, expected))
        .onErrorResume(e -> Mono.empty())
        .switchIfEmpty(Mono.defer(() -> repository.findById(id).map(formats::toJson)));
  }

  /** Number of posts in the database. */
  public Mono<Long> count() {
    return repository.count();
  }

  private boolean isStale() {
    return staleGeneration.get() != repairedGeneration;
  }

  /** Refills the feed from the database; concurrent callers share one run. */
  Mono<Void> refill() {
    while (true) {
      Mono<Void> running = refill.get();
      if (running != null) {
        return running;
      }
      long generation = staleGeneration.get();
      AtomicReference<Mono<Void>> self = new AtomicReference<>();
      Mono<Void> run = trainIfDue()
          .then(republishDictionary())
          .thenMany(repository.all())
          .map(board -> ScoredValue.just(board.score(), format.encode(formats.toJson(board))))
          .buffer(REFILL_CHUNK)
          .concatMap(feed::replace)
          .then(scores.restoreCounter())
          .then(feed.markComplete())
          .doOnSuccess(done -> {
            repairedGeneration = generation;
            log.info("feed refilled from the database");
          })
          .doFinally(signal -> refill.compareAndSet(self.get(), null))
          .cache();
      self.set(run);
      if (refill.compareAndSet(null, run)) {
        return run;
      }
    }
  }

  private List<byte[]> decode(List<byte[]> members) {
    List<byte[]> fragments = new ArrayList<>(members.size());
    for (byte[] member : members) {
      fragments.add(decodeOne(member));
    }
    return fragments;
  }

  private byte[] decodeOne(byte[] member) {
    try {
      return format.decode(member);
    } catch (DictionaryNotFoundException e) {
      loadInBackground(e.dictionaryId());
      throw e;
    }
  }

  /** Loads a dictionary another writer used, off the event loop; reads fall back meanwhile. */
  private void loadInBackground(long id) {
    if (!loading.add(id)) {
      return;
    }
    Mono.fromCallable(() -> feed.dictionaryStore().resolve(id))
        .subscribeOn(Schedulers.boundedElastic())
        .doFinally(signal -> loading.remove(id))
        .subscribe(format::know, e -> log.warn("cannot load dictionary {}: {}",
            dev.stowage.compress.ZstdDictionary.hexId(id), e.toString()));
  }

  /**
   * Saves the dictionary in use to Redis again and names it, since a restarted Redis has lost
   * both and other readers (another instance, the inspector) need them.
   */
  private Mono<Void> republishDictionary() {
    ZstdDictionary inUse = format.dictionary();
    if (inUse == null) {
      return Mono.empty();
    }
    return Mono.fromRunnable(() -> feed.dictionaryStore().save(inUse))
        .subscribeOn(Schedulers.boundedElastic())
        .then(feed.recordDictionaryId(inUse.hexId()))
        .doOnNext(recorded -> {
          if (!recorded.equals(inUse.hexId())) {
            log.warn("Redis names dictionary {} for the feed, this process writes with {}",
                recorded, inUse.hexId());
          }
        })
        .then();
  }

  private void trainInBackground() {
    trainIfDue().subscribe(null, e -> log.warn("dictionary training failed: {}", e.toString()));
  }

  /**
   * Trains, saves and adopts a dictionary when one is wanted and the database holds enough posts.
   * Completes at once otherwise; never fails (a failure leaves members uncompressed).
   */
  Mono<Void> trainIfDue() {
    if (!format.needsDictionary() || !training.compareAndSet(false, true)) {
      return Mono.empty();
    }
    return repository.count()
        .filter(count -> count >= TRAIN_AFTER_POSTS)
        .flatMap(count -> repository.page(0, TRAINING_SAMPLES).map(formats::toJson).collectList())
        .publishOn(Schedulers.boundedElastic())
        .map(samples -> {
          ZstdDictionary trained = FeedFormat.train(samples);
          feed.dictionaryStore().save(trained);
          return trained;
        })
        .flatMap(trained -> feed.recordDictionaryId(trained.hexId())
            .map(recorded -> recorded.equals(trained.hexId()) ? trained
                : feed.dictionaryStore().resolve(Long.parseUnsignedLong(recorded, 16))))
        .doOnNext(adopted -> {
          format.use(adopted);
          log.info("feed members are now compressed with dictionary {}", adopted.hexId());
        })
        .onErrorResume(e -> {
          log.warn("no dictionary for the feed yet: {}", e.toString());
          return Mono.empty();
        })
        .doFinally(signal -> training.set(false))
        .then();
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    if (bytes.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (bytes[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  static boolean isTakenScore(Throwable e) {
    return e instanceof DataIntegrityViolationException
        || e instanceof io.r2dbc.spi.R2dbcDataIntegrityViolationException;
  }

  static boolean isRedisFailure(Throwable e) {
    return e instanceof io.lettuce.core.RedisException
        || e instanceof java.util.concurrent.CompletionException
        || e instanceof java.util.concurrent.TimeoutException;
  }
}
