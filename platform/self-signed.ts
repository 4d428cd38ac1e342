/**
 * The serving certificate: the operator's files (`--tls-cert-file`/`--tls-private-key-file`), or — as upstream does
 * when none are given — a self-signed certificate generated in memory at start for `localhost` and `127.0.0.1`
 * (subject `localhost@<unix seconds>`, one year). Nothing is written to disk, except by `ensureCertInDir`
 * (`--cert-dir`, `--webhook-cert-dir`).
 *
 * Generation uses WebCrypto (EC P-256, ECDSA with SHA-256) and `./x509.ts`; no X.509 package, which would cost
 * megabytes of resident code in the compiled executable for this one certificate.
 */

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Now } from "../kube/clock.ts";
import { parseIP } from "../net/ip.ts";
import { pem, randomSerial, selfSignedServerCertificate } from "./x509.ts";

export interface ServingCert {
  readonly cert: string;
  readonly key: string;
  /** True when generated here. */
  readonly selfSigned: boolean;
}

export class ServingCertError extends Error {
  override readonly name = "ServingCertError";
}

export interface SelfSignedOptions {
  readonly now: Now;
  readonly dnsNames?: readonly string[];
  readonly ips?: readonly string[];
}

const VALIDITY_MS = 365 * 24 * 3600_000;
/** Tolerates a client whose clock is a little behind. */
const BACKDATE_MS = 60_000;
/** What a dNSName (IA5String) may hold: printable ASCII, no space. */
const DNS_NAME = /^[\x21-\x7e]+$/;

/**
 * A fresh key and a certificate for `dnsNames` and `ips`, issued by itself; subject `<first DNS name>@<unix
 * seconds>`. A DNS name that is not printable ASCII or an IP that does not parse is a `ServingCertError`.
 */
export const generateSelfSignedCert = async ({
  now,
  dnsNames = ["localhost"],
  ips = ["127.0.0.1"],
}: SelfSignedOptions): Promise<ServingCert> => {
  const badName = dnsNames.find((dns) => !DNS_NAME.test(dns));
  if (badName !== undefined) throw new ServingCertError(`invalid DNS name ${JSON.stringify(badName)}`);
  const addresses = ips.map((text) => {
    const ip = parseIP(text);
    if (!ip) throw new ServingCertError(`invalid IP address ${JSON.stringify(text)}`);
    return ip;
  });
  const at = now();
  const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const der = await selfSignedServerCertificate({
    keys,
    serial: randomSerial(),
    commonName: `${dnsNames[0] ?? "localhost"}@${Math.floor(at / 1000)}`,
    notBefore: new Date(at - BACKDATE_MS),
    notAfter: new Date(at + VALIDITY_MS),
    dnsNames,
    ips: addresses,
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return { cert: pem("CERTIFICATE", der), key: pem("PRIVATE KEY", pkcs8), selfSigned: true };
};

/** The operator's pair when both files are given; a generated one when neither is; an error for only one. */
export const loadServingCert = async (options: {
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly now: Now;
}): Promise<ServingCert> => {
  const { certFile, keyFile } = options;
  if (!certFile && !keyFile) return generateSelfSignedCert({ now: options.now });
  if (!certFile || !keyFile) {
    throw new ServingCertError("--tls-cert-file and --tls-private-key-file must be given together");
  }
  const read = async (path: string, what: string) => {
    try {
      return await Bun.file(path).text();
    } catch (err) {
      throw new ServingCertError(`failed to read ${what} ${path}: ${(err as Error).message}`, { cause: err });
    }
  };
  return { cert: await read(certFile, "certificate"), key: await read(keyFile, "private key"), selfSigned: false };
};

/**
 * The pair in `dir` named `pairName` (`<pairName>.crt`, `<pairName>.key`), generated and written there when either is
 * missing (upstream: apiserver's `SecureServingOptions.MaybeDefaultWithSelfSignedCerts` with a cert directory), so
 * a restart keeps the certificate a `caBundle` was made from. The key is written readable by its owner only.
 */
export const ensureCertInDir = async (options: {
  readonly dir: string;
  readonly pairName: string;
  readonly now: Now;
}): Promise<{ readonly certFile: string; readonly keyFile: string; readonly generated: boolean }> => {
  const certFile = join(options.dir, `${options.pairName}.crt`);
  const keyFile = join(options.dir, `${options.pairName}.key`);
  if ((await Bun.file(certFile).exists()) && (await Bun.file(keyFile).exists())) {
    return { certFile, keyFile, generated: false };
  }
  const pair = await generateSelfSignedCert({ now: options.now });
  try {
    await mkdir(options.dir, { recursive: true, mode: 0o755 });
    await writeFile(keyFile, pair.key, { mode: 0o600 });
    await writeFile(certFile, pair.cert, { mode: 0o644 });
  } catch (err) {
    throw new ServingCertError(`cannot write a certificate to ${options.dir}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return { certFile, keyFile, generated: true };
};

/**
 * The certificate files a port serves (upstream: `SecureServingOptions.MaybeDefaultWithSelfSignedCerts`): the
 * operator's pair when given; else, with a folder, the pair `pairName` kept there (generated when missing); else none
 * (the listener generates one in memory). `generatedIn` names the folder a new pair was written to.
 */
export const servingCertFiles = async (options: {
  readonly certFile: string;
  readonly keyFile: string;
  readonly certDir: string;
  readonly pairName: string;
  readonly now: Now;
}): Promise<{ readonly certFile?: string; readonly keyFile?: string; readonly generated: boolean }> => {
  if (options.certFile || options.keyFile || !options.certDir) {
    return {
      ...(options.certFile && { certFile: options.certFile }),
      ...(options.keyFile && { keyFile: options.keyFile }),
      generated: false,
    };
  }
  return ensureCertInDir({ dir: options.certDir, pairName: options.pairName, now: options.now });
};
