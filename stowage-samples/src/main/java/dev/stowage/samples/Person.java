package dev.stowage.samples;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The fifth seed's person: six fields and {@code md5}, a checksum over the other six that a reader
 * verifies after taking the person back out of Redis, so that a codec that loses or changes a field
 * is caught.
 *
 * <p>The checksum is the Base64 form of the MD5 digest of {@code id|name|address|phone|sex|age} in
 * UTF-8 ({@code null} text written as the empty string). {@link #of} computes it; the canonical
 * constructor takes whatever it is given, so a codec can rebuild a person as stored and {@link
 * #checksumMatches()} can tell whether it is intact.
 *
 * @param id the key (the seed's {@code person_<id>})
 * @param name a full name
 * @param address a street address
 * @param phone a phone number
 * @param sex {@code "0"} or {@code "1"}
 * @param age 0 to 29
 * @param md5 the checksum described above
 */
public record Person(
    long id, String name, String address, String phone, String sex, int age, String md5)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** A person with its checksum computed from the other fields. */
  public static Person of(long id, String name, String address, String phone, String sex, int age) {
    return new Person(
        id, name, address, phone, sex, age, checksum(id, name, address, phone, sex, age));
  }

  /** Whether {@link #md5()} is the checksum of the other fields. */
  public boolean checksumMatches() {
    return checksum(id, name, address, phone, sex, age).equals(md5);
  }

  /** The checksum of these field values, as {@link #md5()} holds it. */
  public static String checksum(
      long id, String name, String address, String phone, String sex, int age) {
    String text =
        id
            + "|"
            + nullToEmpty(name)
            + "|"
            + nullToEmpty(address)
            + "|"
            + nullToEmpty(phone)
            + "|"
            + nullToEmpty(sex)
            + "|"
            + age;
    try {
      byte[] digest =
          MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has MD5", e);
    }
  }

  private static String nullToEmpty(String text) {
    return text == null ? "" : text;
  }
}
