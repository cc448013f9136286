package dev.stowage.cli.inspect;

import java.io.Serializable;

/** A small record that every codec under test can write. */
public record Note(long id, String title, String body, int votes) implements Serializable {}
