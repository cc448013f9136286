package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesUnitTests {
  @Test
  void aResultFileIsReadableByEveryoneReplacesTheOldOneAndLeavesNoTemporaryFile(@TempDir Path dir)
      throws Exception {
    Path target = dir.resolve("results/codecs.json");
    AtomicFiles.writeString(target, "{\"first\":1}");
    AtomicFiles.writeString(target, "{\"second\":2}");

    assertThat(Files.readString(target)).isEqualTo("{\"second\":2}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .as("not the private mode of a temporary file")
        .isEqualTo("rw-r--r--");
    try (Stream<Path> files = Files.list(target.getParent())) {
      assertThat(files).containsExactly(target);
    }
  }
}
