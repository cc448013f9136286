package dev.stowage.samples;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.io.Serializable;
import java.time.LocalDateTime;
import org.jspecify.annotations.Nullable;

/**
 * A post of the first seed's board service, with its 15 fields under the seed's JSON names ({@code
 * member_id}, {@code phone_number}, {@code modified_at}, ...) and its dates written as {@code
 * yyyy-MM-dd HH:mm:ss}, so Jackson produces the same document the seed's list endpoint returned.
 * Dates carry whole seconds only: finer parts would not survive that format.
 *
 * <p>A plain record that implements {@link Serializable}: Jackson, MessagePack, fastjson2, Kryo,
 * Fory and JDK serialization all read and write it as it is. Text fields may be {@code null}.
 *
 * @param id the 24 hex digit document id (MongoDB's ObjectId form)
 * @param score the position in the feed: the value of the board counter when the post was made
 * @param memberId the author's member number
 * @param title the title
 * @param body the text, which may hold line breaks
 * @param address a postal address over two lines
 * @param country a country name
 * @param job a job title
 * @param credit a credit card number, digits only
 * @param ssn a social security number, {@code ddd-dd-dddd}
 * @param company a company name
 * @param phoneNumber a phone number as people write it
 * @param modifiedAt when the post was last changed, local time, whole seconds
 * @param createdAt when the post was made, local time, whole seconds
 * @param createdTs when the post was made, epoch milliseconds
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
public record BoardRecord(
    @JsonProperty("id") @Nullable String id,
    @JsonProperty("score") long score,
    @JsonProperty("member_id") long memberId,
    @JsonProperty("title") @Nullable String title,
    @JsonProperty("body") @Nullable String body,
    @JsonProperty("address") @Nullable String address,
    @JsonProperty("country") @Nullable String country,
    @JsonProperty("job") @Nullable String job,
    @JsonProperty("credit") @Nullable String credit,
    @JsonProperty("ssn") @Nullable String ssn,
    @JsonProperty("company") @Nullable String company,
    @JsonProperty("phone_number") @Nullable String phoneNumber,
    @JsonProperty("modified_at")
        @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = BoardRecord.DATE_PATTERN)
        @Nullable LocalDateTime modifiedAt,
    @JsonProperty("created_at")
        @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = BoardRecord.DATE_PATTERN)
        @Nullable LocalDateTime createdAt,
    @JsonProperty("created_ts") long createdTs)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The seed's date format for {@code modified_at} and {@code created_at}. */
  public static final String DATE_PATTERN = "yyyy-MM-dd HH:mm:ss";
}
