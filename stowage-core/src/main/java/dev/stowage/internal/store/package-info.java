/**
 * What the stores of content-addressed keys (dictionaries, schemas) share. Part of the internal
 * API: it may change without notice.
 */
@NullMarked
package dev.stowage.internal.store;

import org.jspecify.annotations.NullMarked;
