package dev.stowage.board;

import java.util.Map;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Chooses the database of record from {@code stowage.board.db} before auto-configuration runs: a
 * {@code mongodb://} or {@code mongodb+srv://} URL selects the {@link MongoBoardStore} and turns
 * Spring Boot's R2DBC connection factory off (it would try to read the MongoDB URL as an R2DBC
 * one); anything else leaves the R2DBC store as it was. {@link BoardApplication#main} and {@link
 * BoardServer} apply it; a {@code SpringApplication} of the board's built elsewhere adds it with
 * {@code addInitializers(new BoardDatabaseSelector())}.
 */
public final class BoardDatabaseSelector
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {
  /** The property that names the database of record. */
  static final String DB = "stowage.board.db";

  private static final String EXCLUDE = "spring.autoconfigure.exclude";

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    ConfigurableEnvironment environment = context.getEnvironment();
    if (!MongoBoardStore.isMongoUrl(environment.getProperty(DB))) {
      return;
    }
    String excluded = environment.getProperty(EXCLUDE, "");
    String r2dbc = R2dbcAutoConfiguration.class.getName();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "stowage-board-mongodb",
                Map.of(EXCLUDE, excluded.isBlank() ? r2dbc : excluded + "," + r2dbc)));
  }
}
