/**
 * The serving certificate: the operator's files (`--tls-cert-file`/`--tls-private-key-file`), or — as upstream does
 * when none are given — a self-signed certificate generated in memory at start for `localhost` and `127.0.0.1`
 * (subject `localhost@<unix seconds>`, one year). Nothing is written to disk.
 *
 * Generation uses the `selfsigned` package (EC P-256, SHA-256); it runs under `bun` and in compiled executables.
 */
import { generate } from "selfsigned";
import type { Now } from "./clock.ts";

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

export const generateSelfSignedCert = async ({
  now,
  dnsNames = ["localhost"],
  ips = ["127.0.0.1"],
}: SelfSignedOptions): Promise<ServingCert> => {
  const notBefore = new Date(now() - 60_000);
  const notAfter = new Date(now() + 365 * 24 * 3600_000);
  const pems = await generate(
    [{ name: "commonName", value: `${dnsNames[0] ?? "localhost"}@${Math.floor(now() / 1000)}` }],
    {
      keyType: "ec",
      algorithm: "sha256",
      notBeforeDate: notBefore,
      notAfterDate: notAfter,
      extensions: [
        { name: "basicConstraints", cA: false, critical: true },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        {
          name: "subjectAltName",
          altNames: [
            ...dnsNames.map((value) => ({ type: 2 as const, value })),
            ...ips.map((ip) => ({ type: 7 as const, ip })),
          ],
        },
      ],
    },
  );
  return { cert: pems.cert, key: pems.private, selfSigned: true };
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
