/**
 * Table T5 ({@code stowage bench app}): the fifth seed's {@code /add} and {@code /check}
 * operations, in process, each writing or reading back and checking 100 {@code Person} objects,
 * from 200 concurrent callers: fastjson strings through {@code StringRedisTemplate}, Kryo bytes,
 * and Stowage.
 */
package dev.stowage.bench.app;
