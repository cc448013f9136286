/**
 * The Java client of the board's TCP protocol: {@link dev.stowage.board.client.StowageBoardClient},
 * with the exceptions it completes futures with.
 */
package dev.stowage.board.client;
