package dev.stowage.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./stowage report} on the fixture results, opened from disk in a real browser: Debian's
 * {@code chromium}, headless, with no sandbox, no GPU and no background networking. The page's DOM
 * as Chromium built it ({@code --dump-dom}) has, for every table that ran, its charts with one bar
 * per row; its screenshot is a real picture; and Chromium logs no console message for it.
 *
 * <p>Chromium must be installed ({@code apt-get install chromium}; {@code .ci/run} does it): the
 * test fails without it.
 */
class ReportBrowserIntegrationTests {

  private static final Path MODULE =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
  private static final Path SCRIPT = MODULE.getParent().resolve("stowage");
  private static final List<String> CHROMIUM_FLAGS =
      List.of(
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--no-first-run",
          "--enable-logging=stderr",
          "--v=0");

  @TempDir Path temp;

  @Test
  void theReportLoadsInChromiumWithAChartPerTableAndABarPerRowAndNoConsoleError() throws Exception {
    Path results = ReportFixtures.copyTo(temp.resolve("results"));
    Run built = run(launcherCommand(List.of("report", "--results", results.toString())), temp);
    assertThat(built.exit()).as(built.err()).isZero();
    Path page = results.resolve(ReportBuilder.FILE_NAME);
    assertThat(built.out().strip()).isEqualTo(page.toString());
    assertThat(built.err())
        .contains("cannot read " + results.resolve("app.json"))
        .contains("not run [memory, http, transport, nearcache, cluster]");

    Run dump = chromium(List.of("--dump-dom", page.toUri().toString()));
    assertNoConsoleMessages(dump);
    Document dom = Jsoup.parse(dump.out());
    assertThat(dom.selectFirst("#headline")).isNotNull();
    List<String> charted = new ArrayList<>();
    for (Element section : dom.select("section.table[data-rows]")) {
      int rows = Integer.parseInt(section.attr("data-rows"));
      assertThat(section.select("svg.chart"))
          .as(section.id())
          .isNotEmpty()
          .allSatisfy(
              chart ->
                  assertThat(chart.select("rect.bar[data-row]"))
                      .as(section.id() + " " + chart.attr("data-metric"))
                      .hasSize(rows));
      charted.add(section.attr("data-bench"));
    }
    assertThat(charted).containsExactly("pipeline", "codecs", "clients", "spring");
    assertThat(dom.select("section.table.missing").eachAttr("data-bench"))
        .containsExactly("memory", "http", "transport", "nearcache", "cluster");
    assertThat(dom.select("section.table.failed").eachAttr("data-bench")).containsExactly("app");
    assertThat(dom.select("script")).isEmpty();

    Path screenshot = temp.resolve("report.png");
    Run shot =
        chromium(
            List.of(
                "--screenshot=" + screenshot, "--window-size=1280,2000", page.toUri().toString()));
    assertNoConsoleMessages(shot);
    assertThat(screenshot).exists();
    BufferedImage image = ImageIO.read(screenshot.toFile());
    assertThat(image).as("a PNG Chromium wrote").isNotNull();
    assertThat(image.getWidth()).isEqualTo(1280);
    assertThat(image.getHeight()).isEqualTo(2000);
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 2) {
      for (int x = 0; x < image.getWidth(); x += 2) {
        colours.add(image.getRGB(x, y) & 0xffffff);
      }
    }
    assertThat(colours)
        .as("text, tables and bars, not a blank page")
        .hasSizeGreaterThan(50)
        .contains(0x2a9d5c, 0x8c8c8c);
  }

  @Test
  void aConsoleErrorWouldBeCaught() throws Exception {
    // The check above only means something if Chromium reports console messages this way.
    Path page = temp.resolve("broken.html");
    Files.writeString(
        page,
        "<!DOCTYPE html><html><body><script>console.error('report-check'); missingFunction();</script></body></html>");
    Run run = chromium(List.of("--dump-dom", page.toUri().toString()));
    assertThat(consoleMessages(run))
        .anyMatch(line -> line.contains("report-check"))
        .anyMatch(line -> line.contains("Uncaught ReferenceError"));
  }

  private static void assertNoConsoleMessages(Run run) {
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(consoleMessages(run)).as("console messages of the page").isEmpty();
  }

  /**
   * Chromium's console lines ({@code ...:CONSOLE...] "message", source: ...}) and uncaught errors.
   */
  private static List<String> consoleMessages(Run run) {
    return run.err()
        .lines()
        .filter(line -> line.contains(":CONSOLE") || line.contains("Uncaught"))
        .toList();
  }

  private Run chromium(List<String> args) throws Exception {
    Path chromium = findChromium();
    List<String> command = new ArrayList<>();
    command.add(chromium.toString());
    command.addAll(CHROMIUM_FLAGS);
    command.add("--user-data-dir=" + Files.createTempDirectory(temp, "chromium-profile"));
    command.addAll(args);
    return run(command, temp);
  }

  private static Path findChromium() {
    Path debian = Path.of("/usr/bin/chromium");
    if (Files.isExecutable(debian)) {
      return debian;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir).resolve("chromium");
      if (!dir.isEmpty() && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return fail(
        "chromium is not installed: the report's browser test needs Debian's chromium"
            + " (apt-get install chromium, as .ci/run does)");
  }

  /**
   * The java command {@code ./stowage args} runs (asked with STOWAGE_DRY_RUN=1, so nothing is
   * built).
   */
  private List<String> launcherCommand(List<String> args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("STOWAGE_DRY_RUN", "1");
    builder.environment().remove("STOWAGE_JAVA_OPTS");
    Run run = run(builder, temp);
    assertThat(run.exit()).as(run.err()).isZero();
    List<String> printed = run.out().lines().toList();
    String classPath = printed.get(printed.indexOf("-cp") + 1);
    assertThat(classPath)
        .as("report runs on the bench class path")
        .startsWith(MODULE.resolve("target/stowage-bench-cli.jar").toString());
    return printed;
  }

  record Run(int exit, String out, String err) {}

  private static Run run(List<String> command, Path workDir) throws Exception {
    return run(new ProcessBuilder(command), workDir);
  }

  private static Run run(ProcessBuilder builder, Path workDir) throws Exception {
    Path out = Files.createTempFile(workDir, "run", ".out");
    Path err = Files.createTempFile(workDir, "run", ".err");
    Process process =
        builder
            .directory(workDir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    process.getOutputStream().close();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("timed out: " + builder.command());
    }
    return new Run(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
