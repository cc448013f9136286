package dev.stowage.samples;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** The date convention of the Protobuf, Avro and Thrift forms: whole UTC epoch seconds. */
final class FormDates {
  private FormDates() {}

  static Long toEpochSecond(LocalDateTime time) {
    return time == null ? null : time.toEpochSecond(ZoneOffset.UTC);
  }

  static LocalDateTime fromEpochSecond(Long second) {
    return second == null ? null : LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
  }
}
