package dev.stowage.board.protocol;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The body of {@code POST /boards}: the seed's writable fields under its JSON names. Every field is
 * required; {@code id}, {@code score} and the dates are assigned by the service and ignored when
 * sent. See the service's {@code dev.stowage.board.BoardLimits} for sizes.
 */
public record NewBoard(
    @JsonProperty("member_id") Long memberId,
    @JsonProperty("title") String title,
    @JsonProperty("body") String body,
    @JsonProperty("address") String address,
    @JsonProperty("country") String country,
    @JsonProperty("job") String job,
    @JsonProperty("credit") String credit,
    @JsonProperty("ssn") String ssn,
    @JsonProperty("company") String company,
    @JsonProperty("phone_number") String phoneNumber) {}
