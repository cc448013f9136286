/**
 * The records of the seeds, for tests and benchmarks: {@link dev.stowage.samples.BoardRecord} (the
 * first seed's board post), {@link dev.stowage.samples.Item} (the second seed's five-field object),
 * {@link dev.stowage.samples.Person} (the fifth seed's checksummed person) and {@link
 * dev.stowage.samples.MediaContent} (the jvm-serializers object). {@link
 * dev.stowage.samples.Samples} makes them deterministically; {@link
 * dev.stowage.samples.ProtobufForms}, {@link dev.stowage.samples.AvroForms} and {@link
 * dev.stowage.samples.ThriftForms} convert the board record and the media content to and from the
 * generated classes of those formats ({@code dev.stowage.samples.protobuf}, {@code
 * dev.stowage.samples.avro}, {@code dev.stowage.samples.thrift}).
 *
 * <p>This module depends on no other Stowage module, so that core's tests, the benchmarks and the
 * board service can all use it.
 */
package dev.stowage.samples;
