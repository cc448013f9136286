package dev.stowage.spring.app;

/** A value the test application caches. */
public record Book(long id, String title) {}
