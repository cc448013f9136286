package dev.stowage.board;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when the database of record is relational: {@code stowage.board.db} is not a MongoDB URL
 * (an R2DBC one, or none for the in-memory H2), so that the R2DBC pool, its watchdog and their
 * health check exist only then.
 */
final class RelationalDatabase implements Condition {
  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    return !MongoBoardStore.isMongoUrl(
        context.getEnvironment().getProperty(BoardDatabaseSelector.DB));
  }
}
