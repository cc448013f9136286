package dev.stowage.spring.app;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/** Cached methods that count their calls. */
@Service
public class LibraryService {
  private final AtomicInteger finds = new AtomicInteger();
  private final AtomicInteger searches = new AtomicInteger();
  private final AtomicInteger slowLoads = new AtomicInteger();
  private final AtomicInteger futureLoads = new AtomicInteger();
  private final AtomicInteger monoLoads = new AtomicInteger();
  private final AtomicInteger syncFutureLoads = new AtomicInteger();
  private volatile CompletableFuture<Void> syncFutureRelease =
      CompletableFuture.completedFuture(null);
  private volatile CountDownLatch release = new CountDownLatch(0);

  // Calls so far of each method (read through methods: Spring's proxy of this class has no fields).

  public int finds() {
    return finds.get();
  }

  public int searches() {
    return searches.get();
  }

  public int slowLoads() {
    return slowLoads.get();
  }

  public int futureLoads() {
    return futureLoads.get();
  }

  public int monoLoads() {
    return monoLoads.get();
  }

  public int syncFutureLoads() {
    return syncFutureLoads.get();
  }

  /** Makes the futures of {@link #findLaterOnce} complete only once {@code release} does. */
  public void holdSyncFuturesUntil(CompletableFuture<Void> release) {
    this.syncFutureRelease = release;
  }

  /** Makes {@link #slow} wait until {@code latch} is counted down. */
  public void holdSlowLoadsUntil(CountDownLatch latch) {
    this.release = latch;
  }

  /** Null for a negative id. */
  @Cacheable("books")
  public @Nullable Book find(long id) {
    finds.incrementAndGet();
    return id < 0 ? null : new Book(id, "Book " + id);
  }

  @Cacheable("searches")
  public String search(String author, int page) {
    searches.incrementAndGet();
    return author + " page " + page;
  }

  /** A long text that compresses well. */
  @Cacheable("texts")
  public String text(int n) {
    return ("Chapter " + n + ", in which the same sentence comes back again and again. ")
        .repeat(50);
  }

  @CachePut(value = "books", key = "#book.id")
  public Book save(Book book) {
    return book;
  }

  @CacheEvict("books")
  public void evict(long id) {}

  @CacheEvict(value = "books", allEntries = true)
  public void evictAll() {}

  @Cacheable(value = "slow", sync = true)
  public String slow(String key) throws InterruptedException {
    slowLoads.incrementAndGet();
    if (!release.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("not released");
    }
    return "loaded " + key;
  }

  @Cacheable("futures")
  public CompletableFuture<Book> findLater(long id) {
    futureLoads.incrementAndGet();
    return CompletableFuture.supplyAsync(() -> new Book(id, "Later " + id));
  }

  @Cacheable("monos")
  public Mono<Book> findMono(long id) {
    monoLoads.incrementAndGet();
    return Mono.fromSupplier(() -> new Book(id, "Mono " + id));
  }

  @Cacheable(value = "futuresOnce", sync = true)
  public CompletableFuture<Book> findLaterOnce(long id) {
    syncFutureLoads.incrementAndGet();
    return syncFutureRelease.thenApply(released -> new Book(id, "Once " + id));
  }
}
