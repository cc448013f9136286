package dev.stowage.internal.feed;

import dev.stowage.EnvelopeException;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.internal.Futures;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.EnvelopeWriter;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.redis.WriteCodec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Seals a feed's full buckets: their members, each envelope uncompressed, become one envelope of
 * the feed's encoding at {@link #SEAL_ZSTD_LEVEL}, stored as one string in place of the list
 * ({@code seal.lua}). Sealing is an optimisation that never fails a write: a bucket that cannot be
 * sealed stays an open list, which every reader reads. Also reads a sealed bucket back for a write
 * that must open it, and seals again, a while later, a bucket a write opened. Thread-safe.
 */
final class BucketSealer<V> {
  /**
   * How long a write that finds a bucket sealed holds it ({@code StowageKeys.feedSealHold}): no
   * writer seals it meanwhile, so the write can read it and send itself again with its members
   * (which opens it) without another writer sealing it again in between. Writers that keep writing
   * into a bucket keep it open; sealing is an optimisation, and waits.
   */
  static final int HOLD_MILLIS = 1000;

  private final RedisSession session;
  private final FeedSettings<V> settings;
  private final WriteCodec<V> codec;
  private final String owner;
  private final byte[] key;
  private final BucketKeys bucketKeys;
  private final FeedFailures failures;
  private final PageDecoder<V> decoder;

  BucketSealer(
      RedisSession session,
      FeedSettings<V> settings,
      String owner,
      BucketKeys bucketKeys,
      FeedFailures failures,
      PageDecoder<V> decoder) {
    this.session = session;
    this.settings = settings;
    this.codec = settings.codec();
    this.owner = owner;
    this.key = utf8(settings.key());
    this.bucketKeys = bucketKeys;
    this.failures = failures;
    this.decoder = decoder;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A sealed bucket as read, for {@code put.lua} or {@code remove.lua} to open: its number, the
   * SHA-1 of its value, its members.
   */
  record Opening(long bucket, String digest, List<byte[]> members) {}

  /** A bucket a write filled, with its members as they were then. */
  record FullBucket(long bucket, List<byte[]> members) {}

  /**
   * The full buckets a write's reply lists after its first element (bucket, members, ...); the
   * buckets it lists with a count instead of members had lost their sealed strings, which is
   * reported.
   */
  @SuppressWarnings("unchecked")
  List<FullBucket> fullBuckets(List<Object> reply) {
    if (reply.size() < 3) {
      return List.of();
    }
    List<FullBucket> full = new ArrayList<>((reply.size() - 1) / 2);
    for (int i = 1; i + 1 < reply.size(); i += 2) {
      long bucket = (Long) reply.get(i);
      if (reply.get(i + 1) instanceof Long count) {
        failures.lostBucket(bucket, count);
      } else {
        full.add(new FullBucket(bucket, (List<byte[]>) reply.get(i + 1)));
      }
    }
    return full;
  }

  /**
   * Seals full buckets; never fails: a bucket that cannot be sealed stays an open list, which every
   * reader reads, and the reason is logged once.
   */
  CompletableFuture<Void> seal(List<FullBucket> full) {
    if (full.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<?>[] seals = new CompletableFuture<?>[full.size()];
    for (int i = 0; i < full.size(); i++) {
      FullBucket bucket = full.get(i);
      seals[i] =
          leftOpenOnFailure(
              bucket.bucket(),
              "not sealed",
              settings
                  .preload()
                  .load(bucket.members(), PageDecoder::envelopeStart)
                  .thenApplyAsync(done -> sealedValue(bucket.members()), session.decodeExecutor())
                  .thenCompose(
                      value ->
                          value == null
                              ? CompletableFuture.completedFuture(0L)
                              : FeedScripts.SEAL.<Long>run(
                                  session,
                                  bucketKeys.keys(new long[] {bucket.bucket()}, key),
                                  utf8(Long.toString(bucket.bucket())),
                                  utf8(Integer.toString(bucket.members().size())),
                                  utf8(digest(bucket.members())),
                                  value))
                  .thenApply(
                      outcome -> {
                        if (outcome < 0) {
                          // A write holds the bucket: seal it once the hold is over, if it is still
                          // full.
                          sealLater(bucket.bucket(), Duration.ofMillis(-outcome));
                        }
                        return outcome;
                      }));
    }
    return CompletableFuture.allOf(seals);
  }

  /**
   * The sealed value of a bucket's members: each member's envelope uncompressed, the lot as one
   * envelope of the feed's current encoding. Null when sealing would not make the bucket smaller
   * (the encoding does not compress it) or the bucket is too large to seal.
   */
  byte @Nullable [] sealedValue(List<byte[]> members) {
    EnvelopeCodec<V> sealing = sealingCodec();
    if (sealing == null) {
      return null;
    }
    List<byte[]> plain = new ArrayList<>(members.size());
    long stored = 0;
    for (byte[] member : members) {
      stored += member.length;
      long score = FeedLayout.score(member);
      if (score < 0) {
        return null;
      }
      int offset = FeedLayout.prefixSize(score);
      byte[] envelope = Arrays.copyOfRange(member, offset, member.length);
      if (!Envelope.isEnvelope(envelope)) {
        plain.add(member);
        continue;
      }
      Envelope.Header header = Envelope.readHeader(envelope);
      if (header.compressionId() != CompressionIds.NONE) {
        envelope =
            EnvelopeWriter.write(
                header.codecId(),
                CompressionIds.NONE,
                -1,
                header.hasSchemaVersion() ? header.schemaVersion() : -1,
                codec.current().decodePayload(envelope));
      }
      plain.add(FeedLayout.member(score, envelope));
    }
    byte[] payload = FeedLayout.sealedPayload(plain);
    if (payload.length > PageDecoder.SEAL_MAX_BYTES
        || payload.length > codec.current().maxDecodedSize()) {
      return null;
    }
    byte[] value = sealing.wrap(payload);
    return Envelope.readHeader(value).compressionId() == CompressionIds.NONE
            || value.length >= stored
        ? null
        : value;
  }

  /**
   * How long a bucket a write opened stays open before it is sealed again. Writes into old buckets
   * come in bursts (a refill, a batch of edits): sealing at once would make every other write of
   * the burst open it again, and concurrent writers could keep opening it for each other.
   */
  static final Duration RESEAL_AFTER = Duration.ofMillis(HOLD_MILLIS);

  /**
   * Buckets that a {@link #sealLater} waits to seal: a burst of writes into one bucket schedules
   * one.
   */
  private final Set<Long> sealingLater = ConcurrentHashMap.newKeySet();

  /**
   * Seals a bucket in the background, {@code delay} later, if it is then full and open; nothing
   * when a seal of that bucket is already waiting.
   */
  void sealLater(long bucket, Duration delay) {
    if (!sealingLater.add(bucket)) {
      return;
    }
    byte[] bucketKey = utf8(FeedLayout.bucketKey(settings.key(), bucket));
    Executor later =
        CompletableFuture.delayedExecutor(
            delay.toMillis() + 5, TimeUnit.MILLISECONDS, session.decodeExecutor());
    inBackground(
        leftOpenOnFailure(
            bucket,
            "not sealed again",
            CompletableFuture.runAsync(() -> sealingLater.remove(bucket), later)
                .thenCompose(
                    ready ->
                        session.<List<byte[]>>call(
                            "reading bucket " + bucket + " of " + owner + " to seal it",
                            c -> c.lrange(bucketKey, 0, -1)))
                .thenCompose(
                    members ->
                        members.size() == (bucket == 0 ? BucketKeys.BUCKET - 1 : BucketKeys.BUCKET)
                            ? seal(List.of(new FullBucket(bucket, members)))
                            : CompletableFuture.<Void>completedFuture(null))));
  }

  /**
   * Sealing's work, which never fails: a failure leaves the bucket an open list, which every reader
   * reads, and is logged once.
   */
  private CompletableFuture<Void> leftOpenOnFailure(
      long bucket, String outcome, CompletableFuture<?> work) {
    return work.handle(
        (done, failure) -> {
          if (failure != null) {
            failures.leftOpen(
                bucket,
                "left open, "
                    + outcome
                    + ": "
                    + session
                        .translate(failure, "sealing bucket " + bucket + " of " + owner)
                        .getMessage());
          }
          return null;
        });
  }

  /**
   * The zstd level sealed buckets are written at. A bucket is compressed once and read many times,
   * so it takes a higher level than single values do: in {@code stowage bench memory} a board
   * record's entry took 180 bytes sealed at level 2, 169 at level 6 and 166 at level 9
   * (docs/ARCHITECTURE.md, "Sealed buckets"); level 6 stands between level 2's speed and level 9's
   * bytes.
   */
  static final int SEAL_ZSTD_LEVEL = 6;

  /** The encoding that seals buckets, made for one current encoding of the feed. */
  private record Sealer<V>(EnvelopeCodec<V> from, @Nullable EnvelopeCodec<V> codec) {}

  private volatile @Nullable Sealer<V> sealer;

  /**
   * The feed's current encoding at {@link #SEAL_ZSTD_LEVEL}, with its dictionary if it has one;
   * null when it does not compress with zstd (none, or lz4, chosen for speed), and so does not
   * seal.
   */
  private @Nullable EnvelopeCodec<V> sealingCodec() {
    EnvelopeCodec<V> current = codec.current();
    Sealer<V> made = sealer;
    if (made == null || made.from() != current) {
      Compression compression = current.compression();
      Compression sealing =
          CompressionIds.hasDictionary(compression.id())
              ? CompressionAccess.zstd(
                      CompressionAccess.dictionary(compression).orElseThrow(), SEAL_ZSTD_LEVEL)
                  .magicless(compression.isMagicless())
              : compression.id() == CompressionIds.ZSTD ? Compression.zstd(SEAL_ZSTD_LEVEL) : null;
      made =
          new Sealer<>(
              current,
              sealing == null
                  ? null
                  : EnvelopeCodec.builder(current.writeCodec())
                      .compression(sealing)
                      .maxDecodedSize(current.maxDecodedSize())
                      .build());
      sealer = made;
    }
    return made.codec();
  }

  /** The SHA-1, in lower-case hex, that {@code seal.lua} computes over a bucket's members. */
  static String digest(List<byte[]> members) {
    MessageDigest sha1 = sha1();
    for (byte[] member : members) {
      sha1.update((member.length + ":").getBytes(StandardCharsets.US_ASCII));
      sha1.update(member);
    }
    return HexFormat.of().formatHex(sha1.digest());
  }

  /**
   * Reads a sealed bucket's members, to open it; null when it is not sealed any more. Fails when
   * the sealed value cannot be read, since a write into the bucket would otherwise lose its
   * entries.
   */
  CompletableFuture<@Nullable Opening> readSealed(long bucket) {
    byte[] sealedKey = utf8(FeedLayout.sealedKey(settings.key(), bucket));
    String what = "opening sealed bucket " + bucket + " of " + owner;
    return session
        .<byte @Nullable []>call(what, c -> c.get(sealedKey))
        .thenCompose(
            value -> {
              if (value == null) {
                return CompletableFuture.completedFuture(null);
              }
              return settings
                  .preload()
                  .load(List.of(value), v -> 0)
                  .thenApplyAsync(
                      done -> {
                        try {
                          return new Opening(
                              bucket,
                              sha1Hex(value),
                              FeedLayout.sealedMembers(decoder.sealedPayload(value)));
                        } catch (IllegalArgumentException e) {
                          throw new EnvelopeException(String.valueOf(e.getMessage()))
                              .addContext(what);
                        } catch (StowageException e) {
                          throw e.addContext(what);
                        }
                      },
                      session.decodeExecutor());
            });
  }

  /**
   * The SHA-1, in lower-case hex, that {@code put.lua} and {@code remove.lua} compute over a sealed
   * value.
   */
  private static String sha1Hex(byte[] value) {
    return HexFormat.of().formatHex(sha1().digest(value));
  }

  private static MessageDigest sha1() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-1", e);
    }
  }

  /** Seals an {@code add} started and did not wait for, each by a number of its own. */
  private final Map<Long, CompletableFuture<Void>> background = new ConcurrentHashMap<>();

  private final AtomicLong backgroundSeals = new AtomicLong();

  void inBackground(CompletableFuture<Void> work) {
    Long number = backgroundSeals.incrementAndGet();
    background.put(number, work);
    Futures.whenDone(work, (done, failure) -> background.remove(number));
  }

  /**
   * Completes once no seal runs in the background any more: those that {@code add}s and writes into
   * sealed buckets started, and those they put off while a write held their bucket; for tests and
   * benchmarks.
   */
  public CompletableFuture<Void> sealsSettled() {
    CompletableFuture<?>[] pending =
        background.values().stream()
            .filter(work -> !work.isDone())
            .toArray(CompletableFuture[]::new);
    return pending.length == 0
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.allOf(pending)
            .handle((done, failure) -> null)
            .thenCompose(done -> sealsSettled());
  }
}
