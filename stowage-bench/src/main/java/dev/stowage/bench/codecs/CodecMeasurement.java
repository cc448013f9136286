package dev.stowage.bench.codecs;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.RowRole;
import dev.stowage.compress.Compression;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What table T3 records for one configuration: nanoseconds per record for each phase and the mean
 * encoded size over the benchmark's records, before and after {@link java.util.zip.Deflater}.
 *
 * @param codec the codec
 * @param variant bare, or the envelope with a compression
 * @param data the record shape
 * @param createNs building one record in the codec's own form from field values
 * @param serNs encoding one record (and wrapping it in the envelope, if any)
 * @param deserNs decoding one record
 * @param size the mean size of an encoded record, in bytes
 * @param sizeDeflate the mean size after deflate, in bytes
 */
public record CodecMeasurement(
    CodecUnderTest codec,
    PayloadVariant variant,
    DataShape data,
    double createNs,
    double serNs,
    double deserNs,
    double size,
    double sizeDeflate) {

  /** Checks that nothing is {@code null}. */
  public CodecMeasurement {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(variant, "variant");
    Objects.requireNonNull(data, "data");
  }

  /** create + ser + deser, as jvm-serializers totals it. */
  public double totalNs() {
    return createNs + serNs + deserNs;
  }

  /**
   * The row's name: the codec alone when bare, {@code codec+envelope} for the envelope without
   * compression, and {@code codec+<compression>} otherwise.
   */
  public String rowName() {
    return rowName(codec, variant);
  }

  /** The row name of a configuration; see {@link #rowName()}. */
  public static String rowName(CodecUnderTest codec, PayloadVariant variant) {
    return switch (variant) {
      case BARE -> codec.cliName();
      case NONE -> codec.cliName() + "+envelope";
      default -> codec.cliName() + "+" + variant.paramName();
    };
  }

  /**
   * The role of a configuration: bare codecs a seed used are {@code seed}, other bare codecs {@code
   * peer}, and every enveloped configuration {@code stowage}.
   */
  public static RowRole role(CodecUnderTest codec, PayloadVariant variant) {
    if (variant.enveloped()) {
      return RowRole.STOWAGE;
    }
    return codec.seed() ? RowRole.SEED : RowRole.PEER;
  }

  /** The results row, with params {@code codec, compression, data} and the six T3 metrics. */
  public ResultRow toRow() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("codec", codec.cliName());
    params.put("compression", variant.paramName());
    params.put("data", data.paramName());
    String stowageDefault = stowageDefault();
    if (stowageDefault != null) {
      params.put("stowage_default", stowageDefault);
    }
    Map<String, Number> metrics = new LinkedHashMap<>();
    metrics.put("create_ns", round1(createNs));
    metrics.put("ser_ns", round1(serNs));
    metrics.put("deser_ns", round1(deserNs));
    metrics.put("total_ns", round1(totalNs()));
    metrics.put("size", round1(size));
    metrics.put("size_deflate", round1(sizeDeflate));
    return new ResultRow(rowName(), role(codec, variant), params, metrics);
  }

  /**
   * Which of Stowage's defaults this configuration is, or null: compact MessagePack in the envelope
   * is what {@code Codecs.defaultFor} with {@code Compression.standard()} writes for a record under
   * {@value dev.stowage.compress.Compression#STANDARD_MIN_SIZE} bytes ({@code "standard"}), and
   * with a dictionary what a cache or feed writes once it has learned one ({@code "learned"}).
   */
  public @Nullable String stowageDefault() {
    if (codec != CodecUnderTest.MSGPACK_COMPACT) {
      return null;
    }
    if (variant == PayloadVariant.NONE && size < Compression.STANDARD_MIN_SIZE) {
      return "standard";
    }
    return variant == PayloadVariant.ZSTD_DICT ? "learned" : null;
  }

  private static double round1(double value) {
    return Math.round(value * 10.0) / 10.0;
  }
}
