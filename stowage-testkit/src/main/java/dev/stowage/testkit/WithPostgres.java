package dev.stowage.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class a fresh PostgreSQL database of its own, created before the first test and
 * dropped after the last. Tests, constructors and lifecycle methods receive it as a {@link
 * PostgresDatabase} parameter. The server is the one on {@code 127.0.0.1:5432} (trust auth, user
 * {@code postgres}) when it answers, else a private one started from {@code initdb}; see {@link
 * PostgresServer}. When neither works the test fails with a message saying what was tried; it is
 * never skipped.
 *
 * <pre>{@code
 * @WithPostgres
 * class BoardStoreIntegrationTests {
 *   @Test
 *   void saves(PostgresDatabase db) { ... db.r2dbcUrl() ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(PostgresExtension.class)
public @interface WithPostgres {}
