package dev.stowage.codec;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;

/**
 * A test value with the field kinds the codecs must carry: text, longs, dates, a list, an enum, a
 * nested record, nulls.
 */
public record Post(
    long id,
    Long memberId,
    String title,
    String body,
    BigDecimal credit,
    Instant createdAt,
    LocalDateTime modifiedAt,
    LocalDate day,
    List<String> tags,
    Status status,
    Author author)
    implements Serializable {

  /** A post's state. */
  public enum Status {
    DRAFT,
    PUBLISHED,
    HIDDEN
  }

  /** A post's author. */
  public record Author(String name, int age, double rating) implements Serializable {}
}
