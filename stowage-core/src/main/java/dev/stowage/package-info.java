/**
 * Stowage's public API: the codec SPI, the envelope and the exceptions. Parameters and return
 * values are never {@code null} unless a method says otherwise.
 */
package dev.stowage;
