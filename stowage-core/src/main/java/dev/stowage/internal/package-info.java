/**
 * What the parts of Stowage share that belongs to none of them: waiting for an asynchronous
 * operation in the calling thread, and unwrapping its failures. This package is part of the
 * internal API and may change without notice.
 */
@NullMarked
package dev.stowage.internal;

import org.jspecify.annotations.NullMarked;
