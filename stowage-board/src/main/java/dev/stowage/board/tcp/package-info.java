/**
 * The board service's persistent binary protocol over TCP (optionally TLS): length-prefixed frames
 * with request ids, so that many requests share one connection and replies come back as they
 * complete. {@link dev.stowage.board.protocol.BoardProtocol} (stowage-board-client) holds the wire
 * constants, {@link dev.stowage.board.tcp.TcpOptions} the endpoint's settings and limits, and
 * {@link dev.stowage.board.tcp.BoardTcpServer} runs it beside the HTTP API. The byte-level
 * specification is {@code docs/PROTOCOL.md}; {@link dev.stowage.board.client.StowageBoardClient}
 * (stowage-board-client as well) is the Java client.
 */
package dev.stowage.board.tcp;
