package dev.stowage.internal.feed;

import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeException;
import dev.stowage.Feed.Entry;
import dev.stowage.MissingLibraryException;
import dev.stowage.internal.compress.PayloadDecompressor;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.redis.WriteCodec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Decodes the page script's reply into entries, newest first: open buckets' members, and the parts
 * of sealed buckets, decompressed and split (the last few kept, {@link #READ_BUCKETS}). A member
 * that cannot be decoded is skipped and counted. Thread-safe.
 */
final class PageDecoder<V> {
  /**
   * A bucket is sealed only while its members, uncompressed, take at most this many bytes: a page
   * decompresses a sealed bucket whole to read a few of its entries, and values this large gain
   * little from sharing a frame.
   */
  static final int SEAL_MAX_BYTES = 256 * 1024;

  private final WriteCodec<V> codec;
  private final FeedFailures failures;

  PageDecoder(WriteCodec<V> codec, FeedFailures failures) {
    this.codec = codec;
    this.failures = failures;
  }

  /** A page decoded: its entries, how many the reply held, and their stored size. */
  record Decoded<V>(List<Entry<V>> entries, int expected, long storedBytes) {}

  /** Decodes the page script's reply, newest first: open members, and sealed buckets' parts. */
  Decoded<V> decode(List<Object> parts) {
    List<Entry<V>> entries = new ArrayList<>(parts.size());
    int expected = 0;
    long stored = 0;
    for (Object part : parts) {
      if (part instanceof byte[] member) {
        expected++;
        stored += member.length;
        decodeMember(member, entries);
        continue;
      }
      List<?> sealed = (List<?>) part;
      if (sealed.size() == 2) {
        failures.lostBucket((Long) sealed.get(1), (Long) sealed.get(0));
        continue;
      }
      int lo = ((Long) sealed.get(1)).intValue();
      int hi = ((Long) sealed.get(2)).intValue();
      expected += hi - lo + 1;
      if (!(sealed.get(0) instanceof byte[] value)) {
        failures.skipSealed(hi - lo + 1, "its sealed bucket is missing from Redis");
        continue;
      }
      stored += value.length;
      List<byte[]> members;
      try {
        members = sealedMembers(((Long) sealed.get(3)).longValue(), value);
      } catch (IllegalArgumentException
          | EnvelopeException
          | DictionaryNotFoundException
          | MissingLibraryException e) {
        failures.skipSealed(
            hi - lo + 1, "a sealed bucket of " + value.length + " bytes: " + e.getMessage());
        continue;
      }
      if (members.size() <= hi) {
        failures.skipSealed(
            hi - lo + 1,
            "a sealed bucket holds "
                + members.size()
                + " members where its index says "
                + (hi + 1)
                + " or more");
        continue;
      }
      for (int i = hi; i >= lo; i--) {
        decodeMember(members.get(i), entries);
      }
    }
    return new Decoded<>(entries, expected, stored);
  }

  /**
   * Sealed buckets read lately, decompressed and split, by bucket number, least recently used
   *
   * <p>value equal, byte for byte, to the one it was made from. At most {@link #READ_BUCKETS} of
   * them, and {@link #READ_BUCKET_BYTES}.
   */
  private final LinkedHashMap<Long, ReadBucket> readBuckets = new LinkedHashMap<>(16, 0.75f, true);

  /** The bytes of {@link #readBuckets}; guarded by it. */
  private long readBucketBytes;

  /** Sealed buckets kept decompressed per feed: a few hundred KB for the board's records. */
  static final int READ_BUCKETS = 8;

  /**
   * The most bytes of sealed buckets kept decompressed per feed (their stored values and members):
   * four of the largest a writer seals ({@link #SEAL_MAX_BYTES}); the board's 8 buckets take about
   * 300 KB.
   */
  static final int READ_BUCKET_BYTES = 4 * SEAL_MAX_BYTES;

  /**
   * A sealed bucket's stored value and its members, and the bytes they take. A class, not a record:
   * it holds an array, compared by identity.
   */
  private static final class ReadBucket {
    private final byte[] value;
    private final List<byte[]> members;
    private final long bytes;

    ReadBucket(byte[] value, List<byte[]> members, long bytes) {
      this.value = value;
      this.members = members;
      this.bytes = bytes;
    }

    byte[] value() {
      return value;
    }

    List<byte[]> members() {
      return members;
    }

    long bytes() {
      return bytes;
    }
  }

  /** The bytes of the sealed buckets kept decompressed (stored values and members); for tests. */
  public long keptBucketBytes() {
    synchronized (readBuckets) {
      return readBucketBytes;
    }
  }

  /** The members of a sealed bucket's stored value, decompressed now or kept from a page before. */
  private List<byte[]> sealedMembers(long bucket, byte[] value) {
    synchronized (readBuckets) {
      ReadBucket read = readBuckets.get(bucket);
      if (read != null && Arrays.equals(read.value(), value)) {
        return read.members();
      }
    }
    List<byte[]> members = List.copyOf(FeedLayout.sealedMembers(sealedPayload(value)));
    ReadBucket read = new ReadBucket(value, members, value.length + storedBytes(members));
    synchronized (readBuckets) {
      ReadBucket replaced = readBuckets.put(bucket, read);
      readBucketBytes += read.bytes() - (replaced == null ? 0 : replaced.bytes());
      Iterator<ReadBucket> eldest = readBuckets.values().iterator();
      while ((readBuckets.size() > READ_BUCKETS || readBucketBytes > READ_BUCKET_BYTES)
          && eldest.hasNext()) {
        readBucketBytes -= eldest.next().bytes();
        eldest.remove();
      }
    }
    return members;
  }

  /** Reads the sizes of compressed payloads without decompressing them. */
  private static final PayloadDecompressor SIZES = new PayloadDecompressor(null);

  /**
   * A sealed bucket's payload, decompressed once its size is known to be one that a writer could
   * have sealed: at most {@link #SEAL_MAX_BYTES}, the size it declares read before anything is
   * decompressed. A larger one was not written by a feed, and decompressing it would take memory
   * for nothing.
   *
   * @throws EnvelopeException if the value is no envelope or declares a larger payload
   */
  byte[] sealedPayload(byte[] value) {
    Envelope.Header header = Envelope.readHeader(value);
    int offset = header.payloadOffset();
    long size =
        header.compressionId() == CompressionIds.NONE
            ? value.length - offset
            : SIZES.declaredSize(
                header.compressionId(), value, offset, value.length - offset, Integer.MAX_VALUE);
    if (size > SEAL_MAX_BYTES) {
      throw new EnvelopeException(
              "a sealed bucket's payload of "
                  + size
                  + " bytes is larger than a writer seals ("
                  + SEAL_MAX_BYTES
                  + " bytes at most); it is not decompressed")
          .addContext(header.describe());
    }
    return codec.current().decodePayload(value);
  }

  private void decodeMember(byte[] member, List<Entry<V>> into) {
    long score = FeedLayout.score(member);
    if (score < 0) {
      failures.skip(member, "its score prefix is malformed");
      return;
    }
    int offset = FeedLayout.prefixSize(score);
    try {
      into.add(
          new Entry<>(
              score, codec.current().decode(Arrays.copyOfRange(member, offset, member.length))));
    } catch (CodecException
        | EnvelopeException
        | DictionaryNotFoundException
        | MissingLibraryException e) {
      failures.skip(member, "score " + score + ": " + e.getMessage());
    }
  }

  /** Where a member's envelope starts, after its score; -1 when the score is malformed. */
  static int envelopeStart(byte[] member) {
    long score = FeedLayout.score(member);
    return score < 0 ? -1 : FeedLayout.prefixSize(score);
  }

  static long storedBytes(List<byte[]> members) {
    long bytes = 0;
    for (byte[] member : members) {
      bytes += member.length;
    }
    return bytes;
  }
}
