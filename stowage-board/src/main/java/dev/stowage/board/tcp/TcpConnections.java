package dev.stowage.board.tcp;

import dev.stowage.board.Idleness;
import dev.stowage.board.protocol.BoardProtocol;
import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Decides which connections the TCP endpoint keeps: at most {@link
 * TcpOptions#maxConnectionsPerAddress()} from one remote address, and at most {@link
 * TcpOptions#maxConnections()} in all, where a connection beyond the maximum takes the place of the
 * longest idle connection (no request in flight, no frame begun) rather than being turned away, so
 * that clients holding idle connections cannot lock out a client that comes to make requests. Only
 * when no connection is idle is the newcomer turned away. Thread-safe: connections are admitted
 * from every event loop.
 */
final class TcpConnections {
  private final TcpOptions options;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger admitted = new AtomicInteger();
  private final Set<BoardConnection> kept = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
  private final AtomicLong peakUnsent = new AtomicLong();
  private final AtomicInteger peakPostsInFlight = new AtomicInteger();
  private final AtomicInteger writeTimeouts = new AtomicInteger();
  private final AtomicInteger unsentOverflows = new AtomicInteger();

  TcpConnections(TcpOptions options) {
    this.options = options;
  }

  /** Why a connection was not admitted, or null when it was. */
  record Refusal(int code, String message) {}

  /** Counts a connection that has just opened, admitted or not, until {@link #closed}. */
  void opened() {
    open.incrementAndGet();
  }

  /**
   * Admits {@code connection} from {@code address}, closing the longest idle connection to make
   * room when the endpoint is full.
   *
   * @return null when admitted, else why not
   */
  @Nullable Refusal admit(BoardConnection connection, InetAddress address) {
    int fromAddress = perAddress.merge(address, 1, Integer::sum);
    if (fromAddress > options.maxConnectionsPerAddress()) {
      release(address);
      return new Refusal(
          BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS,
          "the server holds its maximum"
              + " of "
              + options.maxConnectionsPerAddress()
              + " connections from "
              + address.getHostAddress()
              + "; close one first");
    }
    if (admitted.incrementAndGet() > options.maxConnections()) {
      BoardConnection idlest = Idleness.chooseIdlest(kept, BoardConnection::idleness);
      if (idlest == null) {
        admitted.decrementAndGet();
        release(address);
        return new Refusal(
            BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS,
            "the server holds its"
                + " maximum of "
                + options.maxConnections()
                + " connections; try again later");
      }
      idlest.evict(
          "closed to make room for a new connection: the server holds its maximum of "
              + options.maxConnections()
              + " connections and this one was the longest idle");
    }
    kept.add(connection);
    return null;
  }

  /** Forgets a connection that closed; {@code address} is given when it had been admitted. */
  void closed(BoardConnection connection, InetAddress address) {
    open.decrementAndGet();
    if (kept.remove(connection)) {
      admitted.decrementAndGet();
      release(address);
    }
  }

  /** Connections open now, admitted or being turned away. */
  int open() {
    return open.get();
  }

  /**
   * Admitted connections idle now (no request in flight, no frame begun, nothing unsent): those a
   * newcomer beyond the maximum could replace. For tests in this package.
   */
  int idleConnections() {
    return Idleness.countIdle(kept, BoardConnection::idleness);
  }

  /** Notes that a connection now holds {@code bytes} of replies unsent. */
  void unsent(long bytes) {
    peakUnsent.accumulateAndGet(bytes, Math::max);
  }

  /** Notes that a connection's page requests in flight now ask for {@code posts}. */
  void postsInFlight(int posts) {
    peakPostsInFlight.accumulateAndGet(posts, Math::max);
  }

  /** Notes a connection closed by the write timeout. */
  void writeTimedOut() {
    writeTimeouts.incrementAndGet();
  }

  /** Notes a connection closed because a reply would take it past the unsent bytes' limit. */
  void unsentOverflowed() {
    unsentOverflows.incrementAndGet();
  }

  /** The most bytes of replies any connection has held unsent at once. */
  long peakUnsent() {
    return peakUnsent.get();
  }

  /** The most posts any connection's page requests in flight have asked for at once. */
  int peakPostsInFlight() {
    return peakPostsInFlight.get();
  }

  /** Connections closed by the write timeout so far. */
  int writeTimeouts() {
    return writeTimeouts.get();
  }

  /** Connections closed because a reply would have taken them past the unsent bytes' limit. */
  int unsentOverflows() {
    return unsentOverflows.get();
  }

  private void release(InetAddress address) {
    perAddress.computeIfPresent(address, (key, count) -> count == 1 ? null : count - 1);
  }
}
