package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.embedded.TlsCertificates;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class TlsCertificatesUnitTests {

  @Test
  void theAuthoritySignsAServerCertificateForTheLoopbackAndAClientCertificate() throws Exception {
    try (TlsCertificates certificates = TlsCertificates.create()) {
      X509Certificate ca = read(certificates.caCertificate());
      X509Certificate server = read(certificates.serverCertificate());
      X509Certificate client = read(certificates.clientCertificate());

      assertThat(ca.getBasicConstraints()).as("a CA").isGreaterThanOrEqualTo(0);
      ca.verify(ca.getPublicKey());
      server.verify(ca.getPublicKey());
      client.verify(ca.getPublicKey());
      server.checkValidity();
      client.checkValidity();

      assertThat(server.getSubjectAlternativeNames())
          .contains(List.of(7, "127.0.0.1"), List.of(2, "localhost"));
      assertThat(server.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
      assertThat(client.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
      assertThat(client.getSubjectX500Principal().getName()).isEqualTo("CN=stowage-test-client");

      assertThat(privateKeyMatches(certificates.serverKey(), server)).isTrue();
      assertThat(privateKeyMatches(certificates.clientKey(), client)).isTrue();
    }
  }

  @Test
  void closeDeletesTheFilesAndEachCallMakesANewAuthority() throws Exception {
    Path ca;
    byte[] first;
    try (TlsCertificates certificates = TlsCertificates.create()) {
      ca = certificates.caCertificate();
      first = Files.readAllBytes(ca);
      try (TlsCertificates other = TlsCertificates.create()) {
        assertThat(Files.readAllBytes(other.caCertificate())).isNotEqualTo(first);
      }
    }
    assertThat(ca).doesNotExist();
    assertThat(ca.getParent()).doesNotExist();
  }

  private static X509Certificate read(Path pem) throws Exception {
    assertThat(Files.readString(pem)).startsWith("-----BEGIN CERTIFICATE-----\n");
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** Whether the PKCS #8 key in {@code pem} signs what the certificate's public key verifies. */
  private static boolean privateKeyMatches(Path pem, X509Certificate certificate) throws Exception {
    String text = Files.readString(pem);
    assertThat(text).startsWith("-----BEGIN PRIVATE KEY-----\n");
    String body = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    var key =
        KeyFactory.getInstance("EC")
            .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    var signature = Signature.getInstance("SHA256withECDSA");
    signature.initSign(key);
    signature.update(new byte[] {1, 2, 3});
    byte[] signed = signature.sign();
    signature.initVerify(certificate.getPublicKey());
    signature.update(new byte[] {1, 2, 3});
    return signature.verify(signed);
  }
}
