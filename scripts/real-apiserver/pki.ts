/**
 * Certificates and keys for a throw-away kube-apiserver, made by the openssl CLI (scripts/lib/pki.ts): a CA, a
 * serving certificate for 127.0.0.1 and localhost, an admin client certificate (CN=admin, O=system:masters, so RBAC
 * lets it do anything) and the service-account signing key pair.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { openssl, selfSignedCa, signedByCa } from "../lib/pki.ts";

export interface ApiServerPki {
  readonly caCertFile: string;
  readonly caCert: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly adminCertFile: string;
  readonly adminKeyFile: string;
  readonly adminCert: string;
  readonly adminKey: string;
  /** Service-account tokens: signed with the private key, verified with the public one. */
  readonly saKeyFile: string;
  readonly saPubFile: string;
}

/** Writes everything into `dir` (which must exist). */
export async function createPki(dir: string): Promise<ApiServerPki> {
  selfSignedCa(dir, "ca", {
    subject: "/CN=ccm-real-apiserver-ca",
    days: 30,
    addext: ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"],
  });
  signedByCa(dir, "server", {
    subject: "/CN=kube-apiserver",
    ext: [
      "basicConstraints=CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc",
    ],
    key: "ec",
    days: 30,
  });
  signedByCa(dir, "admin", {
    subject: "/O=system:masters/CN=admin",
    ext: ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature", "extendedKeyUsage=clientAuth"],
    key: "ec",
    days: 30,
  });
  openssl(dir, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "sa.key"]);
  openssl(dir, ["pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
  const file = (name: string) => join(dir, name);
  return {
    caCertFile: file("ca.crt"),
    caCert: await readFile(file("ca.crt"), "utf8"),
    serverCertFile: file("server.crt"),
    serverKeyFile: file("server.key"),
    adminCertFile: file("admin.crt"),
    adminKeyFile: file("admin.key"),
    adminCert: await readFile(file("admin.crt"), "utf8"),
    adminKey: await readFile(file("admin.key"), "utf8"),
    saKeyFile: file("sa.key"),
    saPubFile: file("sa.pub"),
  };
}
