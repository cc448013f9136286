package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * {@link WithMongo}'s server — mongo-java-server, a MongoDB wire-compatible test server, not
 * MongoDB — answers the official driver on its URL, reports a duplicate key as error 11000, and
 * keeps its data across a restart on the same port.
 */
@WithMongo
class MongoTestServerIntegrationTests {

  @Test
  void answersTheDriverRejectsDuplicateKeysAndKeepsItsDataAcrossARestart(MongoTestServer mongo) {
    assertThat(mongo.url()).matches("mongodb://127\\.0\\.0\\.1:\\d+/stowage_test_[0-9a-f]{12}");
    int port = mongo.port();
    try (MongoClient client = MongoClients.create(mongo.url())) {
      MongoCollection<Document> things =
          client.getDatabase(mongo.database()).getCollection("things");
      things.createIndex(Indexes.ascending("n"), new IndexOptions().unique(true));
      things.insertOne(new Document("n", 1L).append("name", "one"));
      assertThatThrownBy(() -> things.insertOne(new Document("n", 1L)))
          .isInstanceOfSatisfying(
              MongoWriteException.class, e -> assertThat(e.getError().getCode()).isEqualTo(11000));

      mongo.restart();
      assertThat(mongo.port()).isEqualTo(port);
      assertThat(mongo.isRunning()).isTrue();
      // The driver reconnects; the document and the unique index came back from the file.
      assertThat(things.find(new Document("n", 1L)).first()).containsEntry("name", "one");
      assertThatThrownBy(() -> things.insertOne(new Document("n", 1L)))
          .isInstanceOf(MongoWriteException.class);
      assertThat(things.countDocuments()).isEqualTo(1);
    }
  }
}
