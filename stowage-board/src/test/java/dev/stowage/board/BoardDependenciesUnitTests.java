package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The board is built on stowage-core's public API: none of its classes names a Lettuce type (it
 * has no Redis client of its own; the seed modes reach Redis through Spring Data Redis) or a type
 * of core's internal package. Read from the compiled classes' constant pools, where every
 * type a class uses is named.
 */
class BoardDependenciesUnitTests {
  /** Lettuce's packages, and core's internal one (spelled in two parts so that a grep for it finds only code that uses it). */
  private static final List<String> FORBIDDEN = List.of("io/lettuce/", "dev/stowage/" + "internal/");

  @Test
  void noBoardClassNamesLettuceOrCoreInternals() throws IOException, URISyntaxException {
    Path classes = Path.of(StowageBoardService.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI());
    assertThat(classes).isDirectory();
    List<String> offenders = new ArrayList<>();
    int checked = 0;
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
        checked++;
        String pool = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        for (String forbidden : FORBIDDEN) {
          if (pool.contains(forbidden)) {
            offenders.add(classes.relativize(file) + " names " + forbidden);
          }
        }
      }
    }
    assertThat(checked).as("classes checked").isGreaterThan(20);
    assertThat(offenders).isEmpty();
  }
}
