import { afterAll, describe, expect, test } from "bun:test";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ensureCertInDir,
  generateSelfSignedCert,
  loadServingCert,
  type SelfSignedOptions,
  ServingCertError,
} from "./self-signed.ts";

const at = (iso: string) => () => Date.parse(iso);

interface Case {
  readonly options: SelfSignedOptions;
  readonly subject: string;
  readonly notBefore: string;
  readonly notAfter: string;
  readonly san: string;
}

const CASES: [string, Case][] = [
  [
    "by default it is for localhost and 127.0.0.1, backdated a minute and valid a year",
    {
      options: { now: at("2026-03-01T12:00:00Z") },
      subject: "CN=localhost@1772366400",
      notBefore: "2026-03-01T11:59:00.000Z",
      notAfter: "2027-03-01T12:00:00.000Z",
      san: "DNS:localhost, IP Address:127.0.0.1",
    },
  ],
  [
    "it names every DNS name and IPv4 and IPv6 address, the first DNS name in the subject",
    {
      options: {
        now: at("2026-03-01T12:00:00Z"),
        dnsNames: ["ccm.example", "localhost"],
        ips: ["127.0.0.1", "::1", "2001:db8::10"],
      },
      subject: "CN=ccm.example@1772366400",
      notBefore: "2026-03-01T11:59:00.000Z",
      notAfter: "2027-03-01T12:00:00.000Z",
      san: "DNS:ccm.example, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:2001:DB8:0:0:0:0:0:10",
    },
  ],
  [
    "an IPv4-mapped IPv6 address is written as IPv4, as Go writes it",
    {
      options: { now: at("2026-03-01T12:00:00Z"), dnsNames: ["localhost"], ips: ["::ffff:10.0.0.1"] },
      subject: "CN=localhost@1772366400",
      notBefore: "2026-03-01T11:59:00.000Z",
      notAfter: "2027-03-01T12:00:00.000Z",
      san: "DNS:localhost, IP Address:10.0.0.1",
    },
  ],
  [
    "the validity drops the clock's milliseconds",
    {
      options: { now: at("2026-03-01T12:00:00.999Z") },
      subject: "CN=localhost@1772366400",
      notBefore: "2026-03-01T11:59:00.000Z",
      notAfter: "2027-03-01T12:00:00.000Z",
      san: "DNS:localhost, IP Address:127.0.0.1",
    },
  ],
  [
    "a validity that crosses 2050 ends in GeneralizedTime",
    {
      options: { now: at("2049-12-31T23:59:30Z") },
      subject: "CN=localhost@2524607970",
      notBefore: "2049-12-31T23:58:30.000Z",
      notAfter: "2050-12-31T23:59:30.000Z",
      san: "DNS:localhost, IP Address:127.0.0.1",
    },
  ],
];

describe("generated serving certificates", () => {
  test.each(CASES)("%s", async (_, c) => {
    const pair = await generateSelfSignedCert(c.options);
    const cert = new X509Certificate(pair.cert);
    expect({
      subject: cert.subject,
      issuer: cert.issuer,
      notBefore: cert.validFromDate.toISOString(),
      notAfter: cert.validToDate.toISOString(),
      san: cert.subjectAltName,
    }).toEqual({ subject: c.subject, issuer: c.subject, notBefore: c.notBefore, notAfter: c.notAfter, san: c.san });
  });

  test.each(CASES)("%s: it verifies against itself and matches its key", async (_, c) => {
    const pair = await generateSelfSignedCert(c.options);
    const cert = new X509Certificate(pair.cert);
    expect(pair.selfSigned).toBeTrue();
    expect(cert.verify(cert.publicKey)).toBeTrue();
    expect(cert.checkPrivateKey(createPrivateKey(pair.key))).toBeTrue();
    expect([cert.ca, cert.signatureAlgorithm, cert.publicKey.asymmetricKeyDetails?.namedCurve]).toEqual([
      false,
      "ecdsa-with-SHA256",
      "prime256v1",
    ]);
  });

  test("the default certificate serves localhost and 127.0.0.1 for server authentication", async () => {
    const cert = new X509Certificate((await generateSelfSignedCert({ now: Date.now })).cert);
    expect([cert.checkHost("localhost"), cert.checkIP("127.0.0.1"), cert.keyUsage]).toEqual([
      "localhost",
      "127.0.0.1",
      ["1.3.6.1.5.5.7.3.1"],
    ]);
    expect([cert.checkHost("example.com"), cert.checkIP("127.0.0.2")]).toEqual([undefined, undefined]);
  });

  test("serials are positive, at most 16 bytes, and differ between certificates", async () => {
    const serials = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const { serialNumber } = new X509Certificate((await generateSelfSignedCert({ now: Date.now })).cert);
      expect(serialNumber).toMatch(/^[0-7][0-9A-F]{0,31}$/);
      expect(BigInt(`0x${serialNumber}`)).toBeGreaterThan(0n);
      serials.add(serialNumber);
    }
    expect(serials.size).toBe(10);
  });

  test("the certificate and key are PEM with 64-column base64, the key PKCS#8", async () => {
    const { cert, key } = await generateSelfSignedCert({ now: Date.now });
    for (const [text, label] of [
      [cert, "CERTIFICATE"],
      [key, "PRIVATE KEY"],
    ] as const) {
      const lines = text.trimEnd().split("\n");
      expect([lines[0], lines.at(-1)]).toEqual([`-----BEGIN ${label}-----`, `-----END ${label}-----`]);
      expect(lines.slice(1, -2).every((line) => /^[A-Za-z0-9+/]{64}$/.test(line))).toBeTrue();
      expect(lines.at(-2)).toMatch(/^[A-Za-z0-9+/]{1,64}={0,2}$/);
    }
    expect(createPrivateKey(key).asymmetricKeyType).toBe("ec");
  });

  test.each([
    ["an IP that does not parse", { ips: ["127.0.0.256"] }, 'invalid IP address "127.0.0.256"'],
    ["a DNS name with a space", { dnsNames: ["bad name"] }, 'invalid DNS name "bad name"'],
    ["a DNS name beyond ASCII", { dnsNames: ["bücher.example"] }, 'invalid DNS name "bücher.example"'],
  ])("%s is a ServingCertError", async (_, options, message) => {
    const error = await generateSelfSignedCert({ now: Date.now, ...options }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServingCertError);
    expect((error as Error).message).toBe(message);
  });
});

describe("TLS with a generated certificate", () => {
  const serve = async (options: Omit<SelfSignedOptions, "now">) => {
    const pair = await generateSelfSignedCert({ now: Date.now, ...options });
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: pair.cert, key: pair.key },
      fetch: () => new Response("ok"),
    });
    servers.push(server);
    return { pair, port: server.port };
  };
  const servers: Bun.Server<undefined>[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop(true)));
  });

  test.each(["localhost", "127.0.0.1"])("a client trusting it completes the handshake to %s", async (host) => {
    const { pair, port } = await serve({});
    const response = await fetch(`https://${host}:${port}/`, { keepalive: false, tls: { ca: pair.cert } });
    expect(await response.text()).toBe("ok");
  });

  test("a client trusting it still refuses a host the certificate does not name", async () => {
    const { pair, port } = await serve({ dnsNames: ["elsewhere.example"], ips: [] });
    const attempt = fetch(`https://127.0.0.1:${port}/`, { keepalive: false, tls: { ca: pair.cert } });
    expect(await attempt.then(() => "connected").catch((e: { code?: string }) => e.code)).toBe(
      "ERR_TLS_CERT_ALTNAME_INVALID",
    );
  });
});

describe("loading the serving certificate", () => {
  test("without files it generates one", async () => {
    const loaded = await loadServingCert({ now: Date.now });
    expect(loaded.selfSigned).toBeTrue();
    expect(new X509Certificate(loaded.cert).checkHost("localhost")).toBe("localhost");
  });

  test("with both files it serves them as given", async () => {
    const pair = await generateSelfSignedCert({ now: Date.now, dnsNames: ["given.example"] });
    const dir = await mkdtemp(join(tmpdir(), "self-signed-test-"));
    try {
      await writeFile(join(dir, "tls.crt"), pair.cert);
      await writeFile(join(dir, "tls.key"), pair.key);
      const loaded = await loadServingCert({
        certFile: join(dir, "tls.crt"),
        keyFile: join(dir, "tls.key"),
        now: Date.now,
      });
      expect(loaded).toEqual({ cert: pair.cert, key: pair.key, selfSigned: false });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test.each([
    ["only a certificate", { certFile: "/nonexistent.crt" }],
    ["only a key", { keyFile: "/nonexistent.key" }],
  ])("with %s it is a ServingCertError", async (_, files) => {
    expect(await loadServingCert({ now: Date.now, ...files }).catch((e: unknown) => e)).toBeInstanceOf(
      ServingCertError,
    );
  });
});

describe("a certificate kept in a folder (--webhook-cert-dir)", () => {
  test("is generated there when missing, the key readable by its owner only, and kept on the next start", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cert-dir-test-"));
    try {
      const folder = join(dir, "certs");
      const made = await ensureCertInDir({ dir: folder, pairName: "pair", now: Date.now });
      expect(made).toEqual({ certFile: join(folder, "pair.crt"), keyFile: join(folder, "pair.key"), generated: true });
      expect((await stat(made.keyFile)).mode & 0o777).toBe(0o600);
      const cert = await Bun.file(made.certFile).text();
      expect(new X509Certificate(cert).checkHost("localhost")).toBe("localhost");
      const again = await ensureCertInDir({ dir: folder, pairName: "pair", now: Date.now });
      expect(again.generated).toBeFalse();
      expect(await Bun.file(again.certFile).text()).toBe(cert);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
