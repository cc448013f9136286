package dev.stowage.board.tcp;

import static java.util.Objects.requireNonNull;

import dev.stowage.board.BoardFormats;
import dev.stowage.board.StowageBoardService;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.NettyPipeline;
import reactor.netty.tcp.TcpServer;
import reactor.netty.tcp.TcpSslContextSpec;

/**
 * The board's TCP endpoint on Reactor Netty: a plain port, a TLS port, or both, serving the
 * protocol of {@code docs/PROTOCOL.md} over the same {@link StowageBoardService} as the HTTP API.
 * The board service starts one when {@code stowage.board.tcp.port} or {@code
 * stowage.board.tcp.tls-port} is set; it can also be started on its own. Thread-safe.
 */
public final class BoardTcpServer implements AutoCloseable {
  private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);

  private final TcpOptions options;
  private final TcpConnections connections;
  private final ChannelGroup channels =
      new DefaultChannelGroup("stowage-board-tcp", GlobalEventExecutor.INSTANCE);
  private final @Nullable DisposableServer plain;
  private final @Nullable DisposableServer tls;
  private final @Nullable SelfSignedCertificate selfSigned;
  private final @Nullable Path certificate;

  private BoardTcpServer(TcpOptions options, BoardOperations operations) {
    this.options = options;
    this.connections = new TcpConnections(options);
    DisposableServer plainServer = null;
    SelfSignedCertificate generated = null;
    try {
      if (options.port() != null) {
        plainServer = bind(options.port(), operations, null);
      }
      DisposableServer tlsServer = null;
      if (options.tlsPort() != null) {
        Path cert = options.tlsCertificate();
        Path key = options.tlsPrivateKey();
        if (options.tlsSelfSigned()) {
          generated = new SelfSignedCertificate("localhost");
          cert = generated.certificate().toPath();
          key = generated.privateKey().toPath();
        }
        tlsServer =
            bind(
                options.tlsPort(),
                operations,
                TcpSslContextSpec.forServer(
                    requireNonNull(cert, "tlsCertificate").toFile(),
                    requireNonNull(key, "tlsPrivateKey").toFile()));
        this.certificate = cert;
      } else {
        this.certificate = null;
      }
      this.plain = plainServer;
      this.tls = tlsServer;
      this.selfSigned = generated;
    } catch (CertificateException | RuntimeException e) {
      if (plainServer != null) {
        plainServer.disposeNow();
      }
      if (generated != null) {
        generated.delete();
      }
      throw e instanceof RuntimeException r
          ? r
          : new IllegalStateException("cannot generate a self-signed certificate", e);
    }
  }

  /**
   * Opens the ports that {@code options} names.
   *
   * @throws IllegalArgumentException if {@code options} names no port
   * @throws RuntimeException if a port cannot be bound or the TLS certificate cannot be read
   */
  public static BoardTcpServer start(
      TcpOptions options, StowageBoardService service, BoardFormats formats) {
    Objects.requireNonNull(options, "options");
    if (!options.enabled()) {
      throw new IllegalArgumentException("the TCP options name no port (port or tlsPort)");
    }
    return new BoardTcpServer(
        options,
        new BoardOperations(
            Objects.requireNonNull(service, "service"),
            Objects.requireNonNull(formats, "formats")));
  }

  private DisposableServer bind(
      int port, BoardOperations operations, @Nullable TcpSslContextSpec ssl) {
    boolean isPlain = ssl == null;
    TcpServer server =
        TcpServer.create()
            .host(options.host())
            .port(port)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // Reading stops at half the unsent bytes allowed (see BoardConnection.reading).
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(
                    options.maxUnsentBytes() / 4, options.maxUnsentBytes() / 2))
            .doOnChannelInit((observer, channel, address) -> install(channel, operations, isPlain))
            .handle((in, out) -> Mono.never());
    if (ssl != null) {
      server = server.secure(spec -> spec.sslContext(ssl));
    }
    return server.bindNow(BIND_TIMEOUT);
  }

  private void install(Channel channel, BoardOperations operations, boolean isPlain) {
    channels.add(channel);
    ChannelPipeline pipeline = channel.pipeline();
    FlushConsolidationHandler flushes = new FlushConsolidationHandler(256, true);
    BoardConnection connection = new BoardConnection(operations, options, isPlain, connections);
    if (pipeline.get(NettyPipeline.ReactiveBridge) != null) {
      pipeline.addBefore(NettyPipeline.ReactiveBridge, "stowage.flush", flushes);
      pipeline.addBefore(NettyPipeline.ReactiveBridge, "stowage.board", connection);
    } else {
      pipeline.addLast("stowage.flush", flushes);
      pipeline.addLast("stowage.board", connection);
    }
  }

  /** The plain port, or -1 when there is none. */
  public int port() {
    return plain == null ? -1 : plain.port();
  }

  /** The TLS port, or -1 when there is none. */
  public int tlsPort() {
    return tls == null ? -1 : tls.port();
  }

  /**
   * The TLS port's certificate (PEM), for a client to trust; for a self-signed one, a temporary
   * file deleted by {@link #close()}. Null without a TLS port.
   */
  public @Nullable Path tlsCertificate() {
    return certificate;
  }

  /** The options it runs with. */
  public TcpOptions options() {
    return options;
  }

  /** Connections open now, plain and TLS together. */
  public int openConnections() {
    return connections.open();
  }

  /** The connections' bookkeeping, for tests in this package. */
  TcpConnections connections() {
    return connections;
  }

  /** Closes the ports and every open connection. */
  @Override
  public void close() {
    if (plain != null) {
      plain.disposeNow(BIND_TIMEOUT);
    }
    if (tls != null) {
      tls.disposeNow(BIND_TIMEOUT);
    }
    channels.close().awaitUninterruptibly(BIND_TIMEOUT.toMillis());
    if (selfSigned != null) {
      selfSigned.delete();
    }
  }
}
