package dev.stowage.internal.format;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Fingerprints of {@linkplain Codec.Evolving#schema() codec schemas}: the value written in an
 * envelope's schema field, and the suffix of the Redis key that holds the schema ({@link
 * StowageKeys#schema}).
 */
public final class Schemas {
  /** Fingerprints are 28 bits, so that the envelope's varint takes at most four bytes. */
  public static final int FINGERPRINT_BITS = 28;

  private Schemas() {}

  /**
   * The fingerprint of a schema: the first 28 bits of the SHA-256 of its UTF-8 bytes, from 0 to
   * {@code 0x0FFFFFFF}.
   */
  public static int fingerprint(String schema) {
    requireNonNull(schema, "schema");
    byte[] hash;
    try {
      hash = MessageDigest.getInstance("SHA-256").digest(schema.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    int first =
        ((hash[0] & 0xFF) << 24)
            | ((hash[1] & 0xFF) << 16)
            | ((hash[2] & 0xFF) << 8)
            | (hash[3] & 0xFF);
    return first >>> (32 - FINGERPRINT_BITS);
  }

  /**
   * A fingerprint as seven lower-case hex digits, as in its Redis key (more for a number past 28
   * bits).
   */
  public static String hex(int fingerprint) {
    String digits = Integer.toHexString(fingerprint);
    return digits.length() >= 7 ? digits : "0000000".substring(digits.length()) + digits;
  }

  /**
   * The Redis key of the schema with this fingerprint: {@code stowage:schema:<7 hex digits>}, as
   * {@link StowageKeys#schema} names it.
   */
  public static String key(int fingerprint) {
    return StowageKeys.schema(fingerprint);
  }
}
