package dev.stowage.bench.report;

import java.util.List;
import java.util.Objects;

/**
 * A built report page.
 *
 * @param html the page: self-contained HTML with inline SVG charts and no script
 * @param problems what went wrong with single results files (unreadable, not chartable), each
 *     naming the file; the page shows them too
 * @param tables the benches whose results were charted, in page order
 * @param notRun the known benches without a results file, in page order
 */
public record Report(String html, List<String> problems, List<String> tables, List<String> notRun) {

  /** Copies the lists. */
  public Report {
    Objects.requireNonNull(html, "html");
    problems = List.copyOf(problems);
    tables = List.copyOf(tables);
    notRun = List.copyOf(notRun);
  }
}
