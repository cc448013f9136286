/**
 * What the board service and its clients share: the posts ({@link
 * dev.stowage.board.protocol.NewBoard} sent, {@link dev.stowage.board.protocol.Board} stored and
 * returned, with {@link dev.stowage.board.protocol.BoardIds} for their ids), the mappers of their
 * JSON and MessagePack bodies ({@link dev.stowage.board.protocol.BoardMappers}), and the wire
 * constants of the TCP protocol ({@link dev.stowage.board.protocol.BoardProtocol}, specified in
 * {@code docs/PROTOCOL.md}). No Spring here: the service depends on this package, not the other
 * way.
 */
package dev.stowage.board.protocol;
