/**
 * Dictionaries and schemas in Redis: what the stores of content-addressed keys share, and the keys
 * a {@link dev.stowage.Stowage} keeps there ({@link dev.stowage.internal.store.KeptKeys}, each a
 * {@link dev.stowage.internal.store.KeptKey}). Part of the internal API: it may change without
 * notice.
 */
@NullMarked
package dev.stowage.internal.store;

import org.jspecify.annotations.NullMarked;
