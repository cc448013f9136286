/**
 * A closed-loop load generator that knows nothing of the transport: virtual users started at a
 * ramp, each issuing one request at a time through a {@link dev.stowage.bench.load.RequestIssuer}
 * until the run's duration is up, with latencies in an HdrHistogram, requests per second and
 * failures by cause. {@code bench http} drives it with an HTTP client; a TCP protocol can drive it
 * the same way. Parameters and return values are never {@code null} unless a method says otherwise.
 */
package dev.stowage.bench.load;
