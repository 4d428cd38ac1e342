/**
 * A throw-away PKI for TLS tests, made by the openssl CLI at test time: a CA, a server certificate for
 * IP:127.0.0.1 and DNS:localhost, a client certificate from the same CA, and a rogue CA that signed nothing here.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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

function openssl(dir: string, args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr.toString()}`);
}

const selfSignedCa = (dir: string, name: string, cn: string) =>
  openssl(dir, [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-subj",
    `/CN=${cn}`,
  ]);

function signed(dir: string, name: string, subject: string, ext: string): void {
  openssl(dir, [
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.csr`,
    "-subj",
    subject,
  ]);
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
  ]);
}

export function createTestPki(dir: string): TestPki {
  selfSignedCa(dir, "ca", "kube-test-ca");
  selfSignedCa(dir, "rogue", "rogue-ca");
  signed(
    dir,
    "server",
    "/CN=kube-apiserver",
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
  );
  signed(dir, "client", "/CN=ccm-test/O=system:masters", "extendedKeyUsage=clientAuth\n");
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
