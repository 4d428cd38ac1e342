/**
 * `--tls-min-version` and `--tls-cipher-suites` (and their `--webhook-` twins) as Bun's TLS server takes them
 * (upstream: apiserver's `SecureServingOptions.ApplyTo` with component-base's `TLSVersion` and `TLSCipherSuites`).
 *
 * Upstream takes Go's suite names; Bun's server (BoringSSL) takes OpenSSL's names in `ciphers` and versions to turn
 * off in `secureOptions`. As in Go, the list governs TLS 1.0–1.2 only: TLS 1.3's suites are always on, and a list
 * of TLS 1.3 suites alone leaves no TLS 1.2 suite, so TLS 1.2 is refused. Bun serves TLS 1.2 and 1.3 only, so
 * `VersionTLS10` and `VersionTLS11` (accepted, as upstream) mean TLS 1.2 here; BoringSSL has no RC4, so an RC4 suite
 * is left out, and a list of RC4 suites alone is refused. Unknown names are refused with upstream's messages.
 */

/** What `Bun.serve`'s `tls` takes beside the certificate. */
export interface TlsPolicy {
  /** OpenSSL cipher names, `:`-separated; unset: BoringSSL's defaults. */
  readonly ciphers?: string;
  /** `SSL_OP_NO_*` bits of the versions turned off; unset: none. */
  readonly secureOptions?: number;
}

/** BoringSSL's (and OpenSSL's) option bits. */
const NO_TLS_1_2 = 0x08000000;

/** Go's names (crypto/tls `CipherSuites` and `InsecureCipherSuites`, and component-base's two aliases). */
const TLS13 = new Set(["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]);
const RC4 = new Set(["TLS_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_RC4_128_SHA"]);
const OPENSSL_NAMES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
};
const VERSIONS = new Set(["", "VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"]);

/**
 * The policy of `--<prefix>tls-min-version` and `--<prefix>tls-cipher-suites`, or the errors that refuse them, each
 * naming its flag.
 */
export function tlsPolicy(input: {
  readonly prefix: "" | "webhook-";
  readonly minVersion: string;
  readonly cipherSuites: readonly string[];
}): { readonly policy: TlsPolicy; readonly errors: readonly string[] } {
  const errors: string[] = [];
  if (!VERSIONS.has(input.minVersion)) {
    errors.push(`--${input.prefix}tls-min-version: unknown tls version "${input.minVersion}"`);
  }
  const openssl: string[] = [];
  for (const name of input.cipherSuites) {
    const mapped = OPENSSL_NAMES[name];
    if (mapped) openssl.push(mapped);
    else if (!TLS13.has(name) && !RC4.has(name)) {
      errors.push(`--${input.prefix}tls-cipher-suites: Cipher suite ${name} not supported or doesn't exist`);
    }
  }
  const onlyRc4 = input.cipherSuites.length > 0 && input.cipherSuites.every((n) => RC4.has(n));
  if (onlyRc4) {
    errors.push(
      `--${input.prefix}tls-cipher-suites: RC4 is not available here (BoringSSL has none); name a suite without RC4`,
    );
  }
  // A list without a TLS 1.0–1.2 suite (TLS 1.3's alone) leaves TLS 1.2 nothing to negotiate, as in Go.
  const noTls12 = input.minVersion === "VersionTLS13" || (input.cipherSuites.length > 0 && openssl.length === 0);
  const policy: TlsPolicy = {
    ...(openssl.length > 0 && { ciphers: [...new Set(openssl)].join(":") }),
    ...(noTls12 && { secureOptions: NO_TLS_1_2 }),
  };
  return { policy, errors };
}
