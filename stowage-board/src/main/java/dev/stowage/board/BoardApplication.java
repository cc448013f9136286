package dev.stowage.board;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.RedisReactiveAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.RedisRepositoriesAutoConfiguration;

/**
 * The board service's Spring Boot application. Run it with Spring properties as arguments:
 *
 * <pre>{@code
 * java -cp … dev.stowage.board.BoardApplication --server.port=8080 \
 *     --stowage.board.redis=redis://127.0.0.1:6390 \
 *     --stowage.board.mode=stowage|seed-json|seed-msgpack \
 *     [--stowage.board.db=r2dbc:postgresql://postgres@127.0.0.1:5432/board]
 * }</pre>
 *
 * <p>or start it in-process with {@link BoardServer#start}.
 */
@SpringBootApplication(exclude = {RedisAutoConfiguration.class,
    RedisReactiveAutoConfiguration.class, RedisRepositoriesAutoConfiguration.class})
public class BoardApplication {
  /** Starts the service; the arguments are Spring properties ({@code --name=value}). */
  public static void main(String[] args) {
    SpringApplication.run(BoardApplication.class, args);
  }
}
