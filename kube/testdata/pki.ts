/**
 * A throw-away PKI for TLS tests, made by the openssl CLI at test time (scripts/lib/pki.ts): a CA, a server
 * certificate for IP:127.0.0.1 and DNS:localhost, a client certificate from the same CA, and a rogue CA that signed
 * nothing here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { selfSignedCa, signedByCa } from "../../scripts/lib/pki.ts";

export interface TestPki {
  readonly dir: string;
  /** Paths. */
  readonly caCertFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly rogueCaCertFile: string;
  /** PEM text. */
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly rogueCaCert: string;
}

export function createTestPki(dir: string): TestPki {
  selfSignedCa(dir, "ca", { subject: "/CN=kube-test-ca", days: 2 });
  selfSignedCa(dir, "rogue", { subject: "/CN=rogue-ca", days: 2 });
  signedByCa(dir, "server", {
    subject: "/CN=kube-apiserver",
    ext: ["subjectAltName=IP:127.0.0.1,DNS:localhost", "extendedKeyUsage=serverAuth"],
    key: "rsa",
    days: 2,
  });
  signedByCa(dir, "client", {
    subject: "/CN=ccm-test/O=system:masters",
    ext: ["extendedKeyUsage=clientAuth"],
    key: "rsa",
    days: 2,
  });
  const f = (n: string) => join(dir, n);
  const r = (n: string) => readFileSync(f(n), "utf8");
  return {
    dir,
    caCertFile: f("ca.crt"),
    serverCertFile: f("server.crt"),
    serverKeyFile: f("server.key"),
    clientCertFile: f("client.crt"),
    clientKeyFile: f("client.key"),
    rogueCaCertFile: f("rogue.crt"),
    caCert: r("ca.crt"),
    serverCert: r("server.crt"),
    serverKey: r("server.key"),
    clientCert: r("client.crt"),
    clientKey: r("client.key"),
    rogueCaCert: r("rogue.crt"),
  };
}
