/**
 * The board service: the first seed's WebFlux API ({@code POST /boards}, {@code GET
 * /boards?page=&size=}, {@code GET /boards/{id}}, {@code POST /boards/bulk}) with cache-aside over
 * an R2DBC database of record. Start it with {@link dev.stowage.board.BoardServer} or {@link
 * dev.stowage.board.BoardApplication}; limits are in {@link dev.stowage.board.BoardLimits}.
 */
package dev.stowage.board;
