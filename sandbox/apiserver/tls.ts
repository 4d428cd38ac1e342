/**
 * The serving certificate for `tls: "self-signed"`: a fresh P-256 key and a self-signed certificate for
 * 127.0.0.1 and localhost, made in memory (no openssl needed). It is its own CA: kubeconfigs the server writes
 * carry it as `certificate-authority-data`, which kubectl (Go) and Bun's fetch both accept.
 */

import { parseIP } from "../../net/ip.ts";
import { pem, randomSerial, selfSignedServerCertificate } from "../../platform/x509.ts";

export interface TlsMaterial {
  /** PEM. */
  readonly cert: string;
  /** PEM (PKCS#8). */
  readonly key: string;
  /** PEM of the CA that signed `cert`; the certificate itself when self-signed. */
  readonly ca?: string;
}

const HOUR_MS = 60 * 60 * 1000;

export const selfSignedTls = async (now: () => number): Promise<TlsMaterial> => {
  const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const notBefore = new Date(now() - HOUR_MS);
  const der = await selfSignedServerCertificate({
    keys,
    serial: randomSerial(),
    commonName: "ccm-sandbox-apiserver",
    notBefore,
    notAfter: new Date(notBefore.getTime() + 365 * 24 * HOUR_MS),
    dnsNames: ["localhost"],
    ips: [parseIP("127.0.0.1")!],
    ca: true,
  });
  const cert = pem("CERTIFICATE", der);
  return {
    cert,
    key: pem("PRIVATE KEY", new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey))),
    ca: cert,
  };
};
