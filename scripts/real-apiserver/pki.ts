/**
 * Certificates and keys for a throw-away kube-apiserver, made by the openssl CLI: a CA, a serving certificate for
 * 127.0.0.1 and localhost, an admin client certificate (CN=admin, O=system:masters, so RBAC lets it do anything)
 * and the service-account signing key pair.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

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

async function openssl(dir: string, args: string[]): Promise<void> {
  const p = Bun.spawn(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`openssl ${args.join(" ")} exited with ${code}: ${err}`);
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** A leaf signed by the CA in `dir`; `ext` is an openssl extension section's body. */
async function leaf(dir: string, name: string, subject: string, ext: string): Promise<void> {
  await openssl(dir, ["req", ...EC, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
  await Bun.write(join(dir, `${name}.ext`), ext);
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "30",
    "-out",
    `${name}.crt`,
    "-extfile",
    `${name}.ext`,
  ]);
}

/** Writes everything into `dir` (which must exist). */
export async function createPki(dir: string): Promise<ApiServerPki> {
  await openssl(dir, [
    "req",
    "-x509",
    ...EC,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "30",
    "-subj",
    "/CN=ccm-real-apiserver-ca",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  await leaf(
    dir,
    "server",
    "/CN=kube-apiserver",
    [
      "basicConstraints=CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc",
      "",
    ].join("\n"),
  );
  await leaf(
    dir,
    "admin",
    "/O=system:masters/CN=admin",
    ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature", "extendedKeyUsage=clientAuth", ""].join("\n"),
  );
  await openssl(dir, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "sa.key"]);
  await openssl(dir, ["pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
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
