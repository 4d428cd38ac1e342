/**
 * DER for the one kind of certificate this project makes: a self-signed X.509 v3 certificate for a TLS server
 * (optionally its own CA, as the sandbox's API server is), signed with ECDSA P-256 and SHA-256 (RFC 5280,
 * RFC 5480, RFC 5758). Not a general X.509 library: only what that certificate needs, written with `./der.ts`
 * and WebCrypto so that no X.509 or ASN.1 package is loaded at start.
 */
import type { IPAddress } from "../net/ip.ts";
import {
  bitString,
  booleanTrue,
  contextConstructed,
  contextPrimitive,
  octetString,
  oid,
  positiveInteger,
  readDer,
  sequence,
  set,
  smallInteger,
  Tag,
  time,
  utf8String,
} from "./der.ts";

const OID = {
  commonName: "2.5.4.3",
  ecPublicKey: "1.2.840.10045.2.1",
  prime256v1: "1.2.840.10045.3.1.7",
  ecdsaWithSHA256: "1.2.840.10045.4.3.2",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
} as const;

export interface ServerCertificate {
  /** An extractable ECDSA P-256 pair; the private half signs, the public half is certified. */
  readonly keys: CryptoKeyPair;
  /** Big-endian, read as a positive integer; at most 20 bytes once leading zeros are dropped (RFC 5280 4.1.2.2). */
  readonly serial: Uint8Array;
  /** The subject's and the issuer's only attribute. */
  readonly commonName: string;
  /** With `notAfter`, the validity; each is written to the whole second (RFC 5280 allows no fraction). */
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Already valid host names (IA5String: ASCII). */
  readonly dnsNames: readonly string[];
  readonly ips: readonly IPAddress[];
  /** Also a CA (basicConstraints cA, keyCertSign), so clients can trust it as their root. */
  readonly ca?: boolean;
}

/**
 * A non-zero positive serial of 16 random bytes (126 random bits): the top bit is cleared so it reads as positive,
 * the next one set so it never loses its leading byte and is never zero.
 */
export const randomSerial = (): Uint8Array => {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes;
};

/** WebCrypto's ECDSA signature (`r || s`, each the curve's size) as X.509 wants it: `ECDSA-Sig-Value` in DER. */
export const ecdsaSignatureDer = (raw: Uint8Array): Uint8Array => {
  if (raw.length === 0 || raw.length % 2 !== 0) throw new RangeError(`an ECDSA signature of ${raw.length} bytes`);
  const half = raw.length / 2;
  return sequence(positiveInteger(raw.subarray(0, half)), positiveInteger(raw.subarray(half)));
};

/** The address in network order: 4 bytes for IPv4, 16 for IPv6 (SAN `iPAddress`, RFC 5280 4.2.1.6). */
export const ipBytes = (ip: IPAddress): Uint8Array => {
  const length = ip.family === 4 ? 4 : 16;
  return Uint8Array.from({ length }, (_, i) => Number((ip.value >> BigInt(8 * (length - 1 - i))) & 0xffn));
};

const name = (commonName: string) => sequence(set(sequence(oid(OID.commonName), utf8String(commonName))));

/** `critical` is written only when true: DER leaves out a DEFAULT value. */
const extension = (id: string, critical: boolean, value: Uint8Array) =>
  sequence(oid(id), ...(critical ? [booleanTrue()] : []), octetString(value));

const extensions = (c: ServerCertificate) => {
  const ascii = new TextEncoder();
  const altNames = [
    ...c.dnsNames.map((dns) => contextPrimitive(2, ascii.encode(dns))),
    ...c.ips.map((ip) => contextPrimitive(7, ipBytes(ip))),
  ];
  return [
    // cA is FALSE by default, so DER leaves it out: an empty SEQUENCE.
    extension(OID.basicConstraints, true, c.ca ? sequence(booleanTrue()) : sequence()),
    // digitalSignature (bit 0), keyEncipherment (bit 2), for a CA keyCertSign (bit 5); DER drops trailing zero bits.
    extension(
      OID.keyUsage,
      true,
      c.ca ? bitString(Uint8Array.of(0b1010_0100), 2) : bitString(Uint8Array.of(0b1010_0000), 5),
    ),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
    // RFC 5280 4.2.1.6: a subjectAltName, when present, names at least one.
    ...(altNames.length > 0 ? [extension(OID.subjectAltName, false, sequence(...altNames))] : []),
  ];
};

const publicKeyInfo = async (publicKey: CryptoKey) => {
  const point = new Uint8Array(await crypto.subtle.exportKey("raw", publicKey));
  return sequence(sequence(oid(OID.ecPublicKey), oid(OID.prime256v1)), bitString(point));
};

/** RFC 5758 3.2: ecdsa-with-SHA256 has no parameters, not even NULL. */
const signatureAlgorithm = () => sequence(oid(OID.ecdsaWithSHA256));

/** The certificate in DER, issued by its own subject and signed by `keys.privateKey`. */
export const selfSignedServerCertificate = async (c: ServerCertificate): Promise<Uint8Array> => {
  const subject = name(c.commonName);
  const tbs = sequence(
    contextConstructed(0, smallInteger(2)),
    positiveInteger(c.serial),
    signatureAlgorithm(),
    subject,
    sequence(time(c.notBefore), time(c.notAfter)),
    subject,
    await publicKeyInfo(c.keys.publicKey),
    contextConstructed(3, sequence(...extensions(c))),
  );
  const raw = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, c.keys.privateKey, tbs);
  return sequence(tbs, signatureAlgorithm(), bitString(ecdsaSignatureDer(new Uint8Array(raw))));
};

/** PEM (RFC 7468): base64 in lines of 64 characters between the label's BEGIN and END lines. */
export const pem = (label: string, der: Uint8Array): string => {
  const base64 = Buffer.from(der).toString("base64");
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
};

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([^-]*)-----END CERTIFICATE-----/g;

/**
 * The DER of each `CERTIFICATE` block in PEM text (a CA bundle), text between blocks ignored as OpenSSL ignores it.
 * Throws a `RangeError` saying what is wrong when there is no block, or a block is not base64 of a certificate's
 * frame (a SEQUENCE of the signed part, the signature algorithm and the signature): a shape check, no signature is
 * verified.
 */
export const pemCertificates = (text: string): Uint8Array[] => {
  const blocks = [...text.matchAll(PEM_CERTIFICATE)].map((m) => (m[1] ?? "").replace(/\s+/g, ""));
  if (blocks.length === 0) throw new RangeError("holds no PEM certificate (no -----BEGIN CERTIFICATE----- block)");
  return blocks.map((base64, i) => {
    const der = /^[A-Za-z0-9+/]+={0,2}$/.test(base64) ? Buffer.from(base64, "base64") : undefined;
    if (!der || !isCertificateFrame(der)) {
      throw new RangeError(`certificate ${i + 1} of ${blocks.length} is not an X.509 certificate (base64 of its DER)`);
    }
    return new Uint8Array(der);
  });
};

const isCertificateFrame = (der: Uint8Array): boolean => {
  try {
    const [certificate, ...rest] = readDer(der);
    const [signed, algorithm, signature] = certificate?.children ?? [];
    return (
      rest.length === 0 &&
      certificate?.tag === Tag.sequence &&
      signed?.tag === Tag.sequence &&
      algorithm?.tag === Tag.sequence &&
      signature?.tag === Tag.bitString
    );
  } catch {
    return false;
  }
};
