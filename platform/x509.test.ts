import { describe, expect, test } from "bun:test";
import { createPublicKey, verify, X509Certificate } from "node:crypto";
import { parseIP, parseIPStrict } from "../net/ip.ts";
import { oidText, readDer } from "./der.ts";
import { ecdsaSignatureDer, ipBytes, pem, pemCertificates, randomSerial, selfSignedServerCertificate } from "./x509.ts";

const hex = (bytes: ArrayBuffer | Uint8Array) =>
  Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));
const p256 = () => crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);

describe("ECDSA signatures", () => {
  test.each([
    [
      "r with its top bit set gains a zero byte",
      `80${"11".repeat(31)}`,
      `00${"22".repeat(31)}`,
      `02210080${"11".repeat(31)} 021f${"22".repeat(31)}`,
    ],
    [
      "leading zeros are dropped, down to the one a top bit needs",
      `0000${"7f".repeat(30)}`,
      `0000${"81".repeat(30)}`,
      `021e${"7f".repeat(30)} 021f00${"81".repeat(30)}`,
    ],
    ["a zero half is one zero byte", "00".repeat(32), `${"01".repeat(32)}`, `020100 0220${"01".repeat(32)}`],
  ])("%s", (_, r, s, integers) => {
    const body = integers.replaceAll(" ", "");
    const expected = `30${(body.length / 2).toString(16).padStart(2, "0")}${body}`;
    expect(hex(ecdsaSignatureDer(bytes(r + s)))).toBe(expected);
  });

  test("a WebCrypto signature in DER verifies with OpenSSL's DER reading", async () => {
    const keys = await p256();
    const data = new TextEncoder().encode("to be signed");
    for (let i = 0; i < 20; i++) {
      const raw = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.privateKey, data);
      const spki = Buffer.from(await crypto.subtle.exportKey("spki", keys.publicKey));
      const publicKey = createPublicKey({ key: spki, format: "der", type: "spki" });
      expect(verify("sha256", data, publicKey, ecdsaSignatureDer(new Uint8Array(raw)))).toBeTrue();
    }
  });

  test.each([0, 63])("a raw signature of %i bytes is refused", (length) => {
    expect(() => ecdsaSignatureDer(new Uint8Array(length))).toThrow(RangeError);
  });
});

describe("IP addresses", () => {
  test.each([
    ["10.1.2.3", parseIP, "0a010203"],
    ["::1", parseIP, `${"00".repeat(15)}01`],
    ["2001:db8::ff00:42:8329", parseIP, "20010db8000000000000ff0000428329"],
    ["::ffff:1.2.3.4", parseIP, "01020304"],
    ["::ffff:1.2.3.4", parseIPStrict, "00000000000000000000ffff01020304"],
  ])("%s read by %p is %s", (text, parse, expected) => {
    const ip = parse(text);
    if (!ip) throw new Error(`${text} does not parse`);
    expect(hex(ipBytes(ip))).toBe(expected);
  });
});

describe("serials", () => {
  test("a random serial is 16 bytes, positive and non-zero", () => {
    for (let i = 0; i < 200; i++) {
      const serial = randomSerial();
      expect(serial).toHaveLength(16);
      expect(serial[0]! & 0xc0).toBe(0x40);
    }
  });
});

describe("PEM", () => {
  test.each([1, 47, 48, 49, 100, 480])("%i bytes give lines of at most 64 characters that decode back", (length) => {
    const der = crypto.getRandomValues(new Uint8Array(length));
    const text = pem("THING", der);
    const lines = text.split("\n");
    expect([lines[0], lines.at(-2), lines.at(-1)]).toEqual(["-----BEGIN THING-----", "-----END THING-----", ""]);
    const body = lines.slice(1, -2);
    expect(
      body.every((line, i) => (i < body.length - 1 ? line.length === 64 : line.length > 0 && line.length <= 64)),
    ).toBeTrue();
    expect(hex(Buffer.from(body.join(""), "base64"))).toBe(hex(der));
  });
});

describe("a PEM certificate bundle", () => {
  const certificate = async () =>
    selfSignedServerCertificate({
      keys: await p256(),
      serial: randomSerial(),
      commonName: "ca",
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2027-01-01T00:00:00Z"),
      dnsNames: [],
      ips: [],
      ca: true,
    });

  test("gives each certificate's DER, ignoring the text between blocks", async () => {
    const [a, b] = [await certificate(), await certificate()];
    const bundle = `# cluster CA\n${pem("CERTIFICATE", a)}subject=CN = ca\n${pem("CERTIFICATE", b)}`;
    expect(pemCertificates(bundle).map(hex)).toEqual([hex(a), hex(b)]);
  });

  test.each([
    ["an empty file", "", "holds no PEM certificate"],
    ["a private key only", pem("PRIVATE KEY", bytes("300100")), "holds no PEM certificate"],
    ["DER bytes read as text", "0\x82\x01\x0a0\x81", "holds no PEM certificate"],
    ["a block that is not base64", "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n", "1 of 1"],
    ["a block of base64 that is no certificate", pem("CERTIFICATE", bytes("020101")), "1 of 1 is not an X.509"],
  ])("refuses %s", (_, text, problem) => {
    expect(() => pemCertificates(text)).toThrow(problem);
  });
});

/** `[extnID, critical]` of each extension, read back from the DER. */
const extensionsOf = (der: Uint8Array): [string, boolean][] => {
  const [certificate] = readDer(der);
  const tbs = certificate?.children[0];
  const explicit3 = tbs?.children.find((node) => node.tag === 0xa3);
  const list = explicit3?.children[0]?.children ?? [];
  return list.map((ext) => [oidText(ext.children[0]!.content), ext.children[1]?.tag === 0x01]);
};

describe("the certificate", () => {
  const request = async () => ({
    keys: await p256(),
    serial: bytes("01"),
    commonName: "example@1",
    notBefore: new Date("2026-01-01T00:00:00Z"),
    notAfter: new Date("2027-01-01T00:00:00Z"),
    dnsNames: ["example"],
    ips: [parseIP("192.0.2.1")!],
  });

  test("marks basicConstraints and keyUsage critical, extKeyUsage and subjectAltName not", async () => {
    expect(extensionsOf(await selfSignedServerCertificate(await request()))).toEqual([
      ["2.5.29.19", true],
      ["2.5.29.15", true],
      ["2.5.29.37", false],
      ["2.5.29.17", false],
    ]);
  });

  test("leaves out subjectAltName when there is no name or address", async () => {
    const der = await selfSignedServerCertificate({ ...(await request()), dnsNames: [], ips: [] });
    expect(extensionsOf(der).map(([id]) => id)).toEqual(["2.5.29.19", "2.5.29.15", "2.5.29.37"]);
    expect(new X509Certificate(der).subjectAltName).toBeUndefined();
  });

  test("writes a serial with its top bit set as positive and signs with ecdsa-with-SHA256", async () => {
    const cert = new X509Certificate(await selfSignedServerCertificate({ ...(await request()), serial: bytes("ff") }));
    expect([cert.serialNumber, cert.signatureAlgorithm, cert.ca]).toEqual(["FF", "ecdsa-with-SHA256", false]);
    expect(cert.verify(cert.publicKey)).toBeTrue();
  });

  test("as a CA, it has cA and keyCertSign, so a client can trust it as its own root", async () => {
    const cert = new X509Certificate(await selfSignedServerCertificate({ ...(await request()), ca: true }));
    expect(cert.ca).toBeTrue();
    expect(cert.checkIssued(cert)).toBeTrue();
    expect(cert.verify(cert.publicKey)).toBeTrue();
  });

  test("not as a CA, it cannot issue", async () => {
    const cert = new X509Certificate(await selfSignedServerCertificate(await request()));
    expect(cert.ca).toBeFalse();
  });
});
