/**
 * The commands that read a cache's Redis: {@code stowage inspect}, {@code stowage scan} and {@code
 * stowage dict}. They only read, except {@code dict train}, which stores a dictionary under its
 * content-addressed key. Parameters and return values are never {@code null} unless a method says
 * otherwise.
 */
package dev.stowage.cli.inspect;
