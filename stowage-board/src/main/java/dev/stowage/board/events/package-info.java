/**
 * A Kafka event for every created post, through an outbox: the store writes each post and its
 * pending event atomically ({@link dev.stowage.board.events.EventOutbox}), and {@link
 * dev.stowage.board.events.BoardEvents} relays the pending events to a topic in score order,
 * marking them sent only after the broker acknowledged them. {@link
 * dev.stowage.board.events.BoardEvents#status()} tells how far behind the relay is. The event's
 * JSON is {@link dev.stowage.board.events.PostCreatedEvent}'s.
 */
package dev.stowage.board.events;
