package dev.stowage.board;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Request bodies shaped like the seed's posts, distinct per index, and the HTTP calls the tests
 * make with them.
 */
final class BoardPosts {
  private static final ObjectMapper JSON = new ObjectMapper();

  private BoardPosts() {}

  /** Creates post {@code i} with {@code POST /boards}, expecting 200, and returns its data. */
  static JsonNode create(WebTestClient http, int i) throws IOException {
    byte[] body =
        http.post()
            .uri("/boards")
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue(post(i))
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(body).get("data");
  }

  /** {@code GET path}, expecting 200; the whole JSON answer. */
  static JsonNode get(WebTestClient http, String path) throws IOException {
    byte[] body =
        http.get()
            .uri(path)
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(body);
  }

  static Map<String, Object> post(int i) {
    Map<String, Object> post = new LinkedHashMap<>();
    post.put("member_id", 60_000L + i);
    post.put("title", "Title number " + i);
    post.put(
        "body",
        "These religious theory thousand company girl long environment "
            + i
            + ".\nService require network real somebody view. Sing woman five by.");
    post.put("address", i + " Michael Roads Apt. 058\nSmithfurt, CT 85072");
    post.put("country", "Papua New Guinea");
    post.put("job", "Product manager");
    post.put("credit", "4716296968179136");
    post.put("ssn", "333-96-3366");
    post.put("company", "Diaz and Sons");
    post.put("phone_number", "+1-610-354-4229x" + i);
    return post;
  }
}
