package dev.stowage.bench;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes result files so that a reader never sees half of one: the text goes to a temporary file
 * beside the target, which then replaces the target in one move.
 */
public final class AtomicFiles {
  /**
   * The mode of a written file where the file system has POSIX modes: readable by everyone, as a
   * file any tool writes under the usual umask 022 (a temporary file starts private, 0600, and a
   * results directory is meant to be shared and served).
   */
  static final String MODE = "rw-r--r--";

  private AtomicFiles() {}

  /**
   * Writes {@code text} (UTF-8) to {@code target}, creating its directory if needed.
   *
   * @throws IOException if the directory or file cannot be written
   */
  public static void writeString(Path target, String text) throws IOException {
    Path directory = target.toAbsolutePath().getParent();
    Files.createDirectories(directory);
    Path temp = Files.createTempFile(directory, "." + target.getFileName(), ".tmp");
    try {
      Files.writeString(temp, text);
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString(MODE));
      }
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
