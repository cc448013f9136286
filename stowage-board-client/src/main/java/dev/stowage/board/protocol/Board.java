package dev.stowage.board.protocol;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;

/**
 * One post as stored and returned, with the seed's JSON names and its {@code yyyy-MM-dd HH:mm:ss}
 * dates. {@code id} and {@code score} are assigned by the service; see {@link BoardIds}.
 */
@JsonPropertyOrder({
  "id",
  "score",
  "member_id",
  "title",
  "body",
  "address",
  "country",
  "job",
  "credit",
  "ssn",
  "company",
  "phone_number",
  "modified_at",
  "created_at",
  "created_ts"
})
public record Board(
    @JsonProperty("id") String id,
    @JsonProperty("score") long score,
    @JsonProperty("member_id") long memberId,
    @JsonProperty("title") String title,
    @JsonProperty("body") String body,
    @JsonProperty("address") String address,
    @JsonProperty("country") String country,
    @JsonProperty("job") String job,
    @JsonProperty("credit") String credit,
    @JsonProperty("ssn") String ssn,
    @JsonProperty("company") String company,
    @JsonProperty("phone_number") String phoneNumber,
    @JsonProperty("modified_at")
        @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = "yyyy-MM-dd HH:mm:ss")
        LocalDateTime modifiedAt,
    @JsonProperty("created_at")
        @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = "yyyy-MM-dd HH:mm:ss")
        LocalDateTime createdAt,
    @JsonProperty("created_ts") long createdTs) {

  /**
   * Builds the stored post from an accepted request, a score and the creation instant, as the
   * service does: the id is {@link BoardIds#of} the creation second and the score, and both dates
   * are the creation instant in the default time zone, to the second.
   */
  public static Board create(NewBoard input, long score, long createdMillis) {
    LocalDateTime at =
        LocalDateTime.ofInstant(Instant.ofEpochMilli(createdMillis), ZoneId.systemDefault())
            .withNano(0);
    return new Board(
        BoardIds.of(createdMillis / 1000, score),
        score,
        input.memberId(),
        input.title(),
        input.body(),
        input.address(),
        input.country(),
        input.job(),
        input.credit(),
        input.ssn(),
        input.company(),
        input.phoneNumber(),
        at,
        at,
        createdMillis);
  }
}
