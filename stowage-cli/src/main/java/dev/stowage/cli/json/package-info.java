/**
 * {@code stowage json validate} and {@code stowage json format}: streaming JSON and MessagePack
 * tools whose memory does not grow with the size of their input. Parameters and return values are
 * never {@code null} unless a method says otherwise.
 */
package dev.stowage.cli.json;
