package dev.stowage.bench.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The hand-written results in {@code src/test/resources/report-fixtures}: pipeline, clients (with a
 * failed row), codecs (two data shapes, a row name with markup), app (malformed), spring (a bench
 * the report does not know, with a request error count). memory, http, transport, nearcache and
 * cluster are missing.
 */
final class ReportFixtures {

  static final List<String> FILES =
      List.of("pipeline.json", "clients.json", "codecs.json", "app.json", "spring.json");

  private ReportFixtures() {}

  /** Copies the fixtures into {@code directory} and returns it. */
  static Path copyTo(Path directory) {
    try {
      Files.createDirectories(directory);
      for (String name : FILES) {
        try (InputStream in =
            ReportFixtures.class.getResourceAsStream("/report-fixtures/" + name)) {
          if (in == null) {
            throw new IllegalStateException(
                "fixture " + name + " is missing from the test class path");
          }
          Files.copy(in, directory.resolve(name));
        }
      }
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
