package dev.stowage.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class its own MongoDB wire-compatible test server — mongo-java-server on its H2
 * backend, <b>not MongoDB</b> — on an ephemeral loopback port, with a fresh database, started
 * before the first test and stopped (its data deleted) after the last. Tests, constructors and
 * lifecycle methods receive it as a {@link MongoTestServer} parameter, whose {@link
 * MongoTestServer#url()} is {@code mongodb://127.0.0.1:<port>/<database>} and which can {@link
 * MongoTestServer#restart() restart} from its data file on the same port. A test that uses it says
 * that it runs on a compatible test server, and takes no performance figure from it.
 *
 * <pre>{@code
 * @WithMongo
 * class BoardStoreIntegrationTests {
 *   @Test
 *   void saves(MongoTestServer mongo) { ... mongo.url() ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(MongoExtension.class)
public @interface WithMongo {}
