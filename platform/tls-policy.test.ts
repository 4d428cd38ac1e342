import { describe, expect, test } from "bun:test";
import { type TlsPolicy, tlsPolicy } from "./tls-policy.ts";

const NO_TLS_1_2 = 0x08000000;

describe("tlsPolicy", () => {
  test.each<[string, string, string[], TlsPolicy]>([
    ["nothing given: Bun's defaults", "", [], {}],
    ["VersionTLS12: the default already", "VersionTLS12", [], {}],
    ["VersionTLS10 and VersionTLS11: TLS 1.2, Bun's floor", "VersionTLS10", [], {}],
    ["VersionTLS13: TLS 1.2 turned off", "VersionTLS13", [], { secureOptions: NO_TLS_1_2 }],
    [
      "Go's names become OpenSSL's, in order, once each (an alias too)",
      "",
      [
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
        "TLS_RSA_WITH_AES_128_CBC_SHA",
      ],
      { ciphers: "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:AES128-SHA" },
    ],
    [
      "TLS 1.3 suites are always on, so they are left out of the list",
      "",
      ["TLS_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"],
      { ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" },
    ],
    [
      "TLS 1.3 suites alone leave TLS 1.2 no suite, as in Go",
      "",
      ["TLS_AES_256_GCM_SHA384"],
      { secureOptions: NO_TLS_1_2 },
    ],
    [
      "an RC4 suite beside another is left out",
      "",
      ["TLS_ECDHE_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
      { ciphers: "ECDHE-RSA-AES128-GCM-SHA256" },
    ],
  ])("%s", (_name, minVersion, cipherSuites, policy) => {
    expect(tlsPolicy({ prefix: "", minVersion, cipherSuites })).toEqual({ policy, errors: [] });
  });

  test.each<[string, "" | "webhook-", string, string[], string[]]>([
    ["an unknown version", "", "1.3", [], ['--tls-min-version: unknown tls version "1.3"']],
    [
      "an OpenSSL name where Go's is expected, naming the webhook flag",
      "webhook-",
      "",
      ["ECDHE-RSA-AES128-GCM-SHA256"],
      ["--webhook-tls-cipher-suites: Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn't exist"],
    ],
    [
      "RC4 suites alone",
      "",
      "",
      ["TLS_RSA_WITH_RC4_128_SHA"],
      ["--tls-cipher-suites: RC4 is not available here (BoringSSL has none); name a suite without RC4"],
    ],
  ])("refuses %s", (_name, prefix, minVersion, cipherSuites, errors) => {
    expect(tlsPolicy({ prefix, minVersion, cipherSuites }).errors).toEqual(errors);
  });
});
