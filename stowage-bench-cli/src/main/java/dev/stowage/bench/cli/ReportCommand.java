package dev.stowage.bench.cli;

import dev.stowage.bench.report.Report;
import dev.stowage.bench.report.ReportBuilder;
import dev.stowage.cli.StowageVersion;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stowage report}: builds {@code results/report.html} from the {@code results/*.json} files
 * that {@code stowage bench} writes. Exit code 0 when the page is written, even if some results
 * files could not be read (the page and stderr name them); 1 when the page cannot be written.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header = "Build one HTML page from the results of stowage bench, headline ratios first.",
    description = {
      "Build one self-contained HTML page from the results of stowage bench: headline ratios first, then per table the "
          + "seed's published figures, bar charts of the seed's configuration, peers and Stowage (with ratios to the seed's), "
          + "where it ran and the command that reproduces it. The page has no script and opens from disk with no network."
    })
final class ReportCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--results",
      paramLabel = "DIR",
      defaultValue = "results",
      description = "Directory of the results JSON (default: ${DEFAULT-VALUE}).")
  Path results;

  @Option(
      names = {"-o", "--out"},
      paramLabel = "FILE",
      description = "Where to write the page (default: <results>/" + ReportBuilder.FILE_NAME + ").")
  @Nullable Path out;

  @Override
  public Integer call() {
    Path target = out != null ? out : results.resolve(ReportBuilder.FILE_NAME);
    return write(results, target, spec.commandLine().getOut(), spec.commandLine().getErr()) ? 0 : 1;
  }

  /**
   * Builds the page at {@code target} from the results in {@code results}: the page's path on
   * {@code out}, the files that could not be read and what was charted on {@code err}.
   *
   * @return false if the page could not be written (said on {@code err})
   */
  static boolean write(Path results, Path target, PrintWriter out, PrintWriter err) {
    Report report;
    try {
      report = ReportBuilder.standard().write(results, target);
    } catch (UncheckedIOException e) {
      err.println("report failed: " + e.getMessage());
      err.flush();
      return false;
    }
    for (String problem : report.problems()) {
      err.println("report: " + problem);
    }
    err.printf(
        "report: %d table(s) charted %s, not run %s%n",
        report.tables().size(), report.tables(), report.notRun());
    err.flush();
    out.println(target);
    out.flush();
    return true;
  }
}
