/**
 * The serving certificate for `tls: "self-signed"`: a fresh P-256 key and a self-signed certificate for
 * 127.0.0.1 and localhost, made in memory (no openssl needed). It is its own CA: kubeconfigs the server writes
 * carry it as `certificate-authority-data`, which kubectl (Go) and Bun's fetch both accept.
 */
import * as x509 from "@peculiar/x509";

export interface TlsMaterial {
  /** PEM. */
  readonly cert: string;
  /** PEM (PKCS#8). */
  readonly key: string;
  /** PEM of the CA that signed `cert`; the certificate itself when self-signed. */
  readonly ca?: string;
}

const pem = (label: string, der: ArrayBuffer): string => {
  const b64 = Buffer.from(der)
    .toString("base64")
    .replace(/(.{64})/g, "$1\n");
  return `-----BEGIN ${label}-----\n${b64.endsWith("\n") ? b64 : `${b64}\n`}-----END ${label}-----\n`;
};

export const selfSignedTls = async (now: () => number): Promise<TlsMaterial> => {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const notBefore = new Date(now() - 60 * 60 * 1000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: "CN=ccm-sandbox-apiserver",
      notBefore,
      notAfter: new Date(notBefore.getTime() + 365 * 24 * 60 * 60 * 1000),
      keys,
      signingAlgorithm: alg,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          { type: "ip", value: "127.0.0.1" },
          { type: "dns", value: "localhost" },
        ]),
      ],
    },
    crypto,
  );
  const certPem = cert.toString("pem");
  return {
    cert: certPem,
    key: pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", keys.privateKey)),
    ca: certPem,
  };
};
