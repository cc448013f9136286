package dev.stowage.samples;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;

/** The date convention of the Protobuf, Avro and Thrift forms: whole UTC epoch seconds. */
final class FormDates {
  private FormDates() {}

  static @Nullable Long toEpochSecond(@Nullable LocalDateTime time) {
    return time == null ? null : epochSecond(time);
  }

  static long epochSecond(LocalDateTime time) {
    return time.toEpochSecond(ZoneOffset.UTC);
  }

  static @Nullable LocalDateTime fromEpochSecond(@Nullable Long second) {
    return second == null ? null : LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
  }
}
