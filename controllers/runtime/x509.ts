/**
 * DER for the one kind of certificate this project makes: a self-signed X.509 v3 certificate for a TLS server,
 * signed with ECDSA P-256 and SHA-256 (RFC 5280, RFC 5480, RFC 5758). Not a general X.509 library: only what that
 * certificate needs, built with `asn1js` and WebCrypto so that no X.509 package is loaded at start.
 */
import {
  Boolean as Asn1Boolean,
  Set as Asn1Set,
  type BaseBlock,
  BitString,
  Constructed,
  GeneralizedTime,
  Integer,
  ObjectIdentifier,
  OctetString,
  Primitive,
  Sequence,
  UTCTime,
  Utf8String,
} from "asn1js";
import type { IPAddress } from "../../net/ip.ts";

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

/** asn1js' number for the context-specific tag class. */
const CONTEXT_SPECIFIC = 3;

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

/** DER INTEGER content for an unsigned big-endian magnitude: minimal, with a 0x00 when the top bit is set. */
export const positiveIntegerContent = (magnitude: Uint8Array): Uint8Array => {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  if (trimmed.length === 0) return new Uint8Array([0]);
  if (((trimmed[0] ?? 0) & 0x80) === 0) return trimmed.slice();
  const padded = new Uint8Array(trimmed.length + 1);
  padded.set(trimmed, 1);
  return padded;
};

const positiveInteger = (magnitude: Uint8Array) => new Integer({ valueHex: positiveIntegerContent(magnitude) });

/** WebCrypto's ECDSA signature (`r || s`, each the curve's size) as X.509 wants it: `ECDSA-Sig-Value` in DER. */
export const ecdsaSignatureDer = (raw: Uint8Array): Uint8Array => {
  if (raw.length === 0 || raw.length % 2 !== 0) throw new RangeError(`an ECDSA signature of ${raw.length} bytes`);
  const half = raw.length / 2;
  const sig = new Sequence({ value: [positiveInteger(raw.subarray(0, half)), positiveInteger(raw.subarray(half))] });
  return new Uint8Array(sig.toBER());
};

/** The address in network order: 4 bytes for IPv4, 16 for IPv6 (SAN `iPAddress`, RFC 5280 4.2.1.6). */
export const ipBytes = (ip: IPAddress): Uint8Array => {
  const length = ip.family === 4 ? 4 : 16;
  return Uint8Array.from({ length }, (_, i) => Number((ip.value >> BigInt(8 * (length - 1 - i))) & 0xffn));
};

/** UTCTime for 1950 through 2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5), to the second. */
export const validityTime = (date: Date): UTCTime => {
  const whole = new Date(Math.floor(date.getTime() / 1000) * 1000);
  const year = whole.getUTCFullYear();
  return year >= 1950 && year < 2050 ? new UTCTime({ valueDate: whole }) : new GeneralizedTime({ valueDate: whole });
};

const oid = (value: string) => new ObjectIdentifier({ value });

const name = (commonName: string) => {
  const attribute = new Sequence({ value: [oid(OID.commonName), new Utf8String({ value: commonName })] });
  return new Sequence({ value: [new Asn1Set({ value: [attribute] })] });
};

/** `critical` is written only when true: DER leaves out a DEFAULT value. */
const extension = (id: string, critical: boolean, value: BaseBlock) =>
  new Sequence({
    value: [
      oid(id),
      ...(critical ? [new Asn1Boolean({ value: true })] : []),
      new OctetString({ valueHex: value.toBER() }),
    ],
  });

const contextPrimitive = (tagNumber: number, content: Uint8Array) =>
  new Primitive({ idBlock: { tagClass: CONTEXT_SPECIFIC, tagNumber }, valueHex: content });

const extensions = (dnsNames: readonly string[], ips: readonly IPAddress[]) => {
  const ascii = new TextEncoder();
  const altNames = [
    ...dnsNames.map((dns) => contextPrimitive(2, ascii.encode(dns))),
    ...ips.map((ip) => contextPrimitive(7, ipBytes(ip))),
  ];
  return [
    // cA is FALSE by default, so DER leaves it out: an empty SEQUENCE.
    extension(OID.basicConstraints, true, new Sequence()),
    // digitalSignature (bit 0) and keyEncipherment (bit 2); DER drops the five trailing zero bits.
    extension(OID.keyUsage, true, new BitString({ unusedBits: 5, valueHex: new Uint8Array([0b1010_0000]) })),
    extension(OID.extKeyUsage, false, new Sequence({ value: [oid(OID.serverAuth)] })),
    // RFC 5280 4.2.1.6: a subjectAltName, when present, names at least one.
    ...(altNames.length > 0 ? [extension(OID.subjectAltName, false, new Sequence({ value: altNames }))] : []),
  ];
};

const publicKeyInfo = async (publicKey: CryptoKey) => {
  const point = new Uint8Array(await crypto.subtle.exportKey("raw", publicKey));
  return new Sequence({
    value: [new Sequence({ value: [oid(OID.ecPublicKey), oid(OID.prime256v1)] }), new BitString({ valueHex: point })],
  });
};

/** RFC 5758 3.2: ecdsa-with-SHA256 has no parameters, not even NULL. */
const signatureAlgorithm = () => new Sequence({ value: [oid(OID.ecdsaWithSHA256)] });

/** The certificate in DER, issued by its own subject and signed by `keys.privateKey`. */
export const selfSignedServerCertificate = async (c: ServerCertificate): Promise<Uint8Array> => {
  const subject = name(c.commonName);
  const tbs = new Sequence({
    value: [
      new Constructed({ idBlock: { tagClass: CONTEXT_SPECIFIC, tagNumber: 0 }, value: [new Integer({ value: 2 })] }),
      positiveInteger(c.serial),
      signatureAlgorithm(),
      subject,
      new Sequence({ value: [validityTime(c.notBefore), validityTime(c.notAfter)] }),
      subject,
      await publicKeyInfo(c.keys.publicKey),
      new Constructed({
        idBlock: { tagClass: CONTEXT_SPECIFIC, tagNumber: 3 },
        value: [new Sequence({ value: extensions(c.dnsNames, c.ips) })],
      }),
    ],
  });
  const tbsDer = tbs.toBER();
  const raw = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, c.keys.privateKey, tbsDer);
  const signature = new BitString({ valueHex: ecdsaSignatureDer(new Uint8Array(raw)) });
  const certificate = new Sequence({ value: [tbs, signatureAlgorithm(), signature] });
  return new Uint8Array(certificate.toBER());
};

/** PEM (RFC 7468): base64 in lines of 64 characters between the label's BEGIN and END lines. */
export const pem = (label: string, der: Uint8Array): string => {
  const base64 = Buffer.from(der).toString("base64");
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
};
