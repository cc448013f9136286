package dev.stowage.board;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** The seed's response wrapper, {@code {"code":200,"message":"success","data":…}}. */
@JsonPropertyOrder({"code", "message", "data"})
public record ApiResponse<T>(int code, String message, T data) {
  /** A 200 "success" response carrying {@code data}. */
  public static <T> ApiResponse<T> success(T data) {
    return new ApiResponse<>(200, "success", data);
  }
}
