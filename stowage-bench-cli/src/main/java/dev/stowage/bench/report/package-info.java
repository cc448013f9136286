/**
 * {@code stowage report}: one self-contained HTML page built from the {@code results/*.json} files
 * that {@code stowage bench} writes, with inline SVG bar charts, the seeds' published figures and
 * the command that reproduces each table. The page holds no script and loads nothing from the
 * network. Parameters and return values are never {@code null} unless a method says otherwise.
 */
package dev.stowage.bench.report;
