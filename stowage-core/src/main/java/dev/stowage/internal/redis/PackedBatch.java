package dev.stowage.internal.redis;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The keys of a {@linkplain PackedStorage packed} operation: distinct key texts with their fields,
 * grouped by bucket in order of first appearance, and the groups cut into batches of about a chunk.
 */
final class PackedBatch {
  private final int chunkSize;
  final List<String> texts;
  final List<byte[]> fields = new ArrayList<>();

  /** Per bucket: the bucket's Redis key and the indexes of its keys. */
  final List<byte[]> buckets = new ArrayList<>();

  final List<int[]> groups = new ArrayList<>();

  PackedBatch(
      List<String> texts,
      Function<String, String> fieldOf,
      ToIntFunction<String> bucketOfText,
      IntFunction<byte[]> bucketKey,
      int chunkSize) {
    this.chunkSize = chunkSize;
    this.texts = texts;
    Map<Integer, List<Integer>> byBucket = new LinkedHashMap<>();
    for (int i = 0; i < texts.size(); i++) {
      fields.add(fieldOf.apply(texts.get(i)).getBytes(StandardCharsets.UTF_8));
      byBucket
          .computeIfAbsent(bucketOfText.applyAsInt(texts.get(i)), b -> new ArrayList<>())
          .add(i);
    }
    byBucket.forEach(
        (bucket, indexes) -> {
          buckets.add(bucketKey.apply(bucket));
          groups.add(indexes.stream().mapToInt(Integer::intValue).toArray());
        });
  }

  int size() {
    return texts.size();
  }

  /**
   * The arguments of group {@code g}'s command: its bucket, and its fields (each with its value).
   */
  CommandArgs<byte[], byte[]> args(int g, @Nullable List<byte[]> values) {
    CommandArgs<byte[], byte[]> args =
        new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(buckets.get(g));
    for (int index : groups.get(g)) {
      args.add(fields.get(index));
      if (values != null) {
        args.add(values.get(index));
      }
    }
    return args;
  }

  /** Runs the groups in batches of about {@code chunkSize} keys, a few batches in flight. */
  CompletableFuture<Void> inBatches(Function<int[], CompletableFuture<?>> send) {
    List<int[]> batches = new ArrayList<>();
    int start = 0;
    int keysInBatch = 0;
    for (int g = 0; g < groups.size(); g++) {
      keysInBatch += groups.get(g).length;
      if (keysInBatch >= chunkSize || g == groups.size() - 1) {
        batches.add(new int[] {start, g + 1});
        start = g + 1;
        keysInBatch = 0;
      }
    }
    return ChunkWindow.run(batches.size(), i -> send.apply(batches.get(i)));
  }

  /**
   * Whether {@code key} is {@code <prefix>{n}}, {@code n} one of {@code buckets} in decimal without
   * leading zeros.
   */
  static boolean isBucketKey(byte[] key, byte[] prefixBytes, int buckets) {
    int p = prefixBytes.length;
    int digits = key.length - p - 2;
    if (digits < 1
        || digits > 8
        || key[p] != '{'
        || key[key.length - 1] != '}'
        || !Arrays.equals(key, 0, p, prefixBytes, 0, p)
        || (digits > 1 && key[p + 1] == '0')) {
      return false;
    }
    int bucket = 0;
    for (int i = p + 1; i < key.length - 1; i++) {
      if (key[i] < '0' || key[i] > '9') {
        return false;
      }
      bucket = bucket * 10 + key[i] - '0';
    }
    return bucket < buckets;
  }
}
