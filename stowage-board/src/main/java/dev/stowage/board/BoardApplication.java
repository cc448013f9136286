package dev.stowage.board;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisRepositoriesAutoConfiguration;

/**
 * The board service's Spring Boot application. Run it with Spring properties as arguments:
 *
 * <pre>{@code
 * java -cp … dev.stowage.board.BoardApplication --server.port=8080 \
 *     --stowage.board.redis=redis://127.0.0.1:6390 \
 *     --stowage.board.mode=stowage|seed-json|seed-msgpack \
 *     [--stowage.board.db=r2dbc:postgresql://postgres@127.0.0.1:5432/board
 *       | --stowage.board.db=mongodb://127.0.0.1:27017/board]
 * }</pre>
 *
 * <p>or start it in-process with {@link BoardServer#start}.
 */
@SpringBootApplication(
    exclude = {
      DataRedisAutoConfiguration.class,
      DataRedisReactiveAutoConfiguration.class,
      DataRedisRepositoriesAutoConfiguration.class
    })
public class BoardApplication {
  /** Starts the service; the arguments are Spring properties ({@code --name=value}). */
  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(BoardApplication.class);
    application.addInitializers(new BoardDatabaseSelector());
    application.run(args);
  }
}
