package dev.stowage.spring;

import dev.stowage.CacheUnavailableException;
import dev.stowage.MissingLibraryException;
import dev.stowage.StowageException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Stowage's start-up errors in Spring Boot's "APPLICATION FAILED TO START" report, with a
 * description and an action, instead of a bean creation stack trace: a bad {@code stowage.*} (or
 * {@code spring.cache.redis.*}) value, which Stowage's messages name; a codec's or compression's
 * missing library ({@link MissingLibraryException}), with its Maven coordinates; a Redis that could
 * not be reached with {@code stowage.connect-in-background=false}; any other {@link
 * StowageException}. Registered in {@code META-INF/spring.factories}.
 *
 * <p>It matches the property names in Stowage's messages ({@code stowage.caches.books.ttl must
 * ...}): those messages are an API, and {@code StowageFailureAnalyzerIntegrationTests} guards them.
 */
final class StowageFailureAnalyzer implements FailureAnalyzer {
  /** A property named in a message, such as {@code stowage.caches.books.ttl}. */
  private static final Pattern PROPERTY =
      Pattern.compile("(?<![\\w.])(?:stowage|spring\\.cache\\.redis)\\.[\\w.<>\\[\\]-]*[\\w>\\]]");

  /** The coordinates in a {@link MissingLibraryException}'s message. */
  private static final Pattern COORDINATES = Pattern.compile("needs (\\S+:\\S+) on the classpath");

  @Override
  @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the chain
  public @Nullable FailureAnalysis analyze(Throwable failure) {
    RuntimeException setting = null;
    String property = null;
    MissingLibraryException missing = null;
    StowageException stowage = null;
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof MissingLibraryException library) {
        missing = library;
      } else if (cause instanceof StowageException other && stowage == null) {
        stowage = other;
      } else if (setting == null
          && (cause instanceof IllegalArgumentException || cause instanceof IllegalStateException)
          && fromStowage(cause)) {
        property = property(cause.getMessage());
        setting = property == null ? null : (RuntimeException) cause;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    if (missing != null) {
      Matcher coordinates = COORDINATES.matcher(String.valueOf(missing.getMessage()));
      String library =
          coordinates.find() ? coordinates.group(1) : "the library the description names";
      String description = setting != null ? setting.getMessage() : missing.getMessage();
      return new FailureAnalysis(
          description,
          "Add "
              + library
              + " as a dependency of the application, or choose"
              + " another codec or compression"
              + (property == null ? "" : " in " + property)
              + ".",
          failure);
    }
    if (setting != null && property != null) {
      String message = String.valueOf(setting.getMessage());
      int advice = message.indexOf("; ");
      return new FailureAnalysis(
          "Stowage cannot start with this setting: " + message,
          "Change "
              + property
              + (advice < 0
                  ? " to a valid value, or remove it to take the default."
                  : ": " + message.substring(advice + 2) + "."),
          failure);
    }
    if (stowage instanceof CacheUnavailableException) {
      return new FailureAnalysis(
          "Stowage could not reach Redis: " + stowage.getMessage(),
          "Start Redis at that"
              + " address, or correct spring.data.redis.* (url, host, port, sentinel, cluster.nodes); or leave"
              + " stowage.connect-in-background at true, its default, so that the application starts and connects"
              + " once Redis answers (its health is DOWN until then).",
          failure);
    }
    if (stowage != null) {
      return new FailureAnalysis(
          "Stowage failed while the application started: " + stowage.getMessage(),
          "Check the Redis that spring.data.redis.* names and the stowage.* settings that the description names.",
          failure);
    }
    return null;
  }

  private static boolean fromStowage(Throwable cause) {
    StackTraceElement[] trace = cause.getStackTrace();
    return trace.length > 0 && trace[0].getClassName().startsWith("dev.stowage.");
  }

  private static @Nullable String property(@Nullable String message) {
    if (message == null) {
      return null;
    }
    Matcher matcher = PROPERTY.matcher(message);
    return matcher.find() ? matcher.group() : null;
  }
}
