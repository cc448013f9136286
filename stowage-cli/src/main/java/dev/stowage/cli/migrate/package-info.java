/**
 * {@code stowage migrate}: one-off changes to what a Redis holds, on the way from another cache to
 * Stowage ({@code docs/MIGRATION.md}). Parameters and return values are never {@code null} unless a
 * method says otherwise.
 */
package dev.stowage.cli.migrate;
