package dev.stowage.bench.report;

import java.math.BigDecimal;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

/** Escaping and number formatting for the report's HTML and SVG. */
final class Html {

  private Html() {}

  /** The text with {@code & < > " '} escaped, safe in element content and in quoted attributes. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** A measured value with about three significant digits, and thousands separators above 1,000. */
  static String number(double value) {
    double abs = Math.abs(value);
    if (abs >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (abs >= 100) {
      return String.format(Locale.ROOT, "%.0f", value);
    }
    if (abs >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    if (abs >= 0.1 || abs == 0) {
      return String.format(Locale.ROOT, "%.2f", value);
    }
    return String.format(Locale.ROOT, "%.3g", value);
  }

  /** A published figure as its source wrote it: no digits added, thousands separated. */
  static String published(double value) {
    BigDecimal exact = BigDecimal.valueOf(value).stripTrailingZeros();
    if (exact.scale() < 0) {
      exact = exact.setScale(0);
    }
    String pattern = exact.scale() > 0 ? "#,##0." + "0".repeat(exact.scale()) : "#,##0";
    return new DecimalFormat(pattern, DecimalFormatSymbols.getInstance(Locale.ROOT)).format(exact);
  }

  /** A count, rounded to a whole number, with thousands separators. */
  static String count(double value) {
    return String.format(Locale.ROOT, "%,.0f", value);
  }

  /** A ratio such as {@code "×0.42"} or {@code "×12.5"}. */
  static String ratio(double ratio) {
    return "\u00d7"
        + (ratio >= 10
            ? String.format(Locale.ROOT, "%.1f", ratio)
            : String.format(Locale.ROOT, "%.2f", ratio));
  }

  /** A coordinate with one decimal, for SVG attributes. */
  static String coordinate(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  /** The text cut to {@code max} characters, with an ellipsis when cut. */
  static String shorten(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "\u2026";
  }
}
