package dev.stowage.embedded;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A certificate authority made for one test run, with a server certificate for {@code 127.0.0.1}
 * and {@code localhost} and a client certificate that it signed, all as PEM files (keys
 * unencrypted, in PKCS #8) in a temporary directory of their own. EC P-256 keys, valid for a day.
 *
 * <pre>{@code
 * try (TlsCertificates certificates = TlsCertificates.create();
 *      RedisServer redis = RedisServer.startTls(certificates)) {
 *   SslOptions ssl = SslOptions.builder()
 *       .keyManager(certificates.clientCertificate().toFile(), certificates.clientKey().toFile(), null)
 *       .trustManager(certificates.caCertificate().toFile())
 *       .build();
 *   ... redis.uri() ...
 * }
 * }</pre>
 *
 * <p>Nothing here is fit for anything but tests. Thread-safe.
 */
public final class TlsCertificates implements AutoCloseable {
  private static final Duration VALIDITY = Duration.ofDays(1);
  private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
  private static final char[] STORE_PASSWORD = "stowage".toCharArray();

  private final Path dir;
  private final X509Certificate ca;
  private final X509Certificate client;
  private final PrivateKey clientKey;
  private volatile @Nullable SSLContext clientContext;

  private TlsCertificates(
      Path dir, X509Certificate ca, X509Certificate client, PrivateKey clientKey) {
    this.dir = dir;
    this.ca = ca;
    this.client = client;
    this.clientKey = clientKey;
  }

  /**
   * Makes a fresh authority, server certificate and client certificate, and writes them.
   *
   * @throws IllegalStateException if the JDK cannot make EC keys or the files cannot be written
   */
  public static TlsCertificates create() {
    try {
      Path dir = Files.createTempDirectory("stowage-tls");
      KeyPair caKeys = newKeyPair();
      X500Name caName = new X500Name("CN=Stowage test CA");
      X509v3CertificateBuilder caBuilder = builder(caName, caName, caKeys);
      caBuilder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      caBuilder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      X509Certificate ca = sign(caBuilder, caKeys.getPrivate());

      KeyPair serverKeys = newKeyPair();
      X509v3CertificateBuilder serverBuilder =
          builder(caName, new X500Name("CN=127.0.0.1"), serverKeys);
      serverBuilder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                new GeneralName(GeneralName.dNSName, "localhost")
              }));
      serverBuilder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      serverBuilder.addExtension(
          Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      X509Certificate server = sign(serverBuilder, caKeys.getPrivate());

      KeyPair clientKeys = newKeyPair();
      X509v3CertificateBuilder clientBuilder =
          builder(caName, new X500Name("CN=stowage-test-client"), clientKeys);
      clientBuilder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      clientBuilder.addExtension(
          Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
      X509Certificate client = sign(clientBuilder, caKeys.getPrivate());

      TlsCertificates certificates = new TlsCertificates(dir, ca, client, clientKeys.getPrivate());
      writePem(certificates.caCertificate(), "CERTIFICATE", ca.getEncoded());
      writePem(certificates.serverCertificate(), "CERTIFICATE", server.getEncoded());
      writePem(certificates.serverKey(), "PRIVATE KEY", serverKeys.getPrivate().getEncoded());
      writePem(certificates.clientCertificate(), "CERTIFICATE", client.getEncoded());
      writePem(certificates.clientKey(), "PRIVATE KEY", clientKeys.getPrivate().getEncoded());
      return certificates;
    } catch (IOException e) {
      throw new IllegalStateException("cannot write test certificates: " + e, e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make test certificates: " + e, e);
    }
  }

  /** The authority's certificate, which signed the other two: {@code ca.crt}. */
  public Path caCertificate() {
    return dir.resolve("ca.crt");
  }

  /** The server's certificate, for {@code 127.0.0.1} and {@code localhost}: {@code server.crt}. */
  public Path serverCertificate() {
    return dir.resolve("server.crt");
  }

  /** The server's private key: {@code server.key}. */
  public Path serverKey() {
    return dir.resolve("server.key");
  }

  /** The client's certificate, {@code CN=stowage-test-client}: {@code client.crt}. */
  public Path clientCertificate() {
    return dir.resolve("client.crt");
  }

  /** The client's private key: {@code client.key}. */
  public Path clientKey() {
    return dir.resolve("client.key");
  }

  /** A JDK context that trusts the authority and presents the client certificate. */
  SSLContext clientContext() {
    SSLContext context = clientContext;
    if (context != null) {
      return context;
    }
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("client", clientKey, STORE_PASSWORD, new Certificate[] {client, ca});
      KeyManagerFactory keyManagers =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, STORE_PASSWORD);
      context = SSLContext.getInstance("TLS");
      context.init(keyManagers.getKeyManagers(), trustManagers(), null);
      clientContext = context;
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "cannot make a TLS context from the test certificates: " + e, e);
    }
  }

  /** Trust managers that trust the authority alone. */
  public TrustManager[] trustManagers() {
    try {
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      trusted.load(null, null);
      trusted.setCertificateEntry("ca", ca);
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trusted);
      return factory.getTrustManagers();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot trust the test authority: " + e, e);
    }
  }

  /** Deletes the files. Idempotent. */
  @Override
  public void close() {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort: a temp directory, perhaps already gone
    }
  }

  @Override
  public String toString() {
    return "TlsCertificates[" + dir + "]";
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIALS.incrementAndGet()),
        Date.from(now.minus(Duration.ofMinutes(5))),
        Date.from(now.plus(VALIDITY)),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
      throws GeneralSecurityException, OperatorCreationException {
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
  }

  private static void writePem(Path file, String type, byte[] der) throws IOException {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    Files.writeString(
        file,
        "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n",
        StandardCharsets.US_ASCII);
  }
}
