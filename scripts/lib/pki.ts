/**
 * Throw-away certificate authorities and certificates made by the openssl CLI in a folder of the caller's: for the
 * kube client's TLS tests (kube/testdata/pki.ts) and for the real kube-apiserver the `test:real` tier starts
 * (scripts/real-apiserver/pki.ts). Files are named `<name>.key`, `<name>.crt` (and the leaf's `.csr` and `.ext`).
 *
 * Synchronous: the kube tests build their PKI in synchronous setup, and each call is one short openssl run.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** The new key's type: ECDSA on P-256, or RSA with 2048 bits. */
export type KeyType = "ec" | "rsa";

const NEW_KEY: Record<KeyType, string[]> = {
  ec: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
  rsa: ["-newkey", "rsa:2048"],
};

/** Runs `openssl` with `args` in `dir`; throws with its stderr when it fails. */
export function openssl(dir: string, args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")} exited with ${r.exitCode}: ${r.stderr.toString()}`);
}

/**
 * A self-signed CA with an ECDSA P-256 key: `<name>.key`, `<name>.crt`. `addext`: extensions beyond openssl's
 * defaults for `req -x509` (such as `basicConstraints=critical,CA:TRUE`).
 */
export function selfSignedCa(
  dir: string,
  name: string,
  opts: { readonly subject: string; readonly days: number; readonly addext?: readonly string[] },
): void {
  openssl(dir, [
    "req",
    "-x509",
    ...NEW_KEY.ec,
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-days",
    String(opts.days),
    "-subj",
    opts.subject,
    ...(opts.addext ?? []).flatMap((ext) => ["-addext", ext]),
  ]);
}

/**
 * A certificate signed by the CA `ca.crt`/`ca.key` in `dir`: `<name>.key`, `<name>.crt`. `ext`: the lines of its
 * openssl extension file (`subjectAltName=…`, `extendedKeyUsage=…`).
 */
export function signedByCa(
  dir: string,
  name: string,
  opts: { readonly subject: string; readonly ext: readonly string[]; readonly key: KeyType; readonly days: number },
): void {
  openssl(dir, [
    "req",
    ...NEW_KEY[opts.key],
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.csr`,
    "-subj",
    opts.subject,
  ]);
  writeFileSync(join(dir, `${name}.ext`), opts.ext.map((line) => `${line}\n`).join(""));
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
    String(opts.days),
    "-extfile",
    `${name}.ext`,
  ]);
}
