/**
 * A DER writer (ITU-T X.690) for the handful of types an X.509 certificate needs, and a reader of the same
 * tag-length-value frames (tests, and the shape check of a configured CA bundle).
 *
 * Why not `asn1js`: building one certificate with it costs about 5.5 MiB of resident memory in the compiled executable
 * (measured), against the idle-memory target (docs/performance.md), for what is here a few lines of byte writing.
 */

/** Universal tags, and the constructed bit. */
export const Tag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  utf8String: 0x0c,
  sequence: 0x30,
  set: 0x31,
  utcTime: 0x17,
  generalizedTime: 0x18,
} as const;

/** Bytes on a plain `ArrayBuffer`, which WebCrypto accepts as input. */
export type Bytes = Uint8Array<ArrayBuffer>;

const concat = (parts: readonly Uint8Array[]): Bytes => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** Definite length: short form below 128, else the long form with the fewest bytes. */
const lengthBytes = (n: number): Uint8Array => {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
};

/** One frame: `tag`, the length of `content`, then `content` (the parts, concatenated). */
export const tlv = (tag: number, ...content: readonly Uint8Array[]): Bytes => {
  const body = concat(content);
  return concat([Uint8Array.of(tag), lengthBytes(body.length), body]);
};

export const sequence = (...items: readonly Uint8Array[]) => tlv(Tag.sequence, ...items);
export const set = (...items: readonly Uint8Array[]) => tlv(Tag.set, ...items);
export const booleanTrue = () => tlv(Tag.boolean, Uint8Array.of(0xff));
export const octetString = (content: Uint8Array) => tlv(Tag.octetString, content);
export const utf8String = (text: string) => tlv(Tag.utf8String, new TextEncoder().encode(text));
export const smallInteger = (n: number) => tlv(Tag.integer, Uint8Array.of(n));

/** BIT STRING of whole bytes, or with `unusedBits` trailing zero bits of the last byte not counted. */
export const bitString = (content: Uint8Array, unusedBits = 0) =>
  tlv(Tag.bitString, Uint8Array.of(unusedBits), content);

/** `[n]` in the context-specific class: EXPLICIT (constructed) around frames, or IMPLICIT (primitive) bytes. */
export const contextConstructed = (n: number, ...items: readonly Uint8Array[]) => tlv(0xa0 | n, ...items);
export const contextPrimitive = (n: number, content: Uint8Array) => tlv(0x80 | n, content);

/** INTEGER content for an unsigned big-endian magnitude: minimal, with a 0x00 when the top bit is set. */
export const positiveIntegerContent = (magnitude: Uint8Array): Uint8Array => {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  if (trimmed.length === 0) return Uint8Array.of(0);
  return ((trimmed[0] ?? 0) & 0x80) === 0 ? trimmed.slice() : concat([Uint8Array.of(0), trimmed]);
};

export const positiveInteger = (magnitude: Uint8Array) => tlv(Tag.integer, positiveIntegerContent(magnitude));

/** OBJECT IDENTIFIER from dotted text: the first two arcs in one byte, each arc in base 128. */
export const oid = (dotted: string): Bytes => {
  const arcs = dotted.split(".").map(Number);
  const [a = 0, b = 0, ...rest] = arcs;
  const out: number[] = [];
  for (const arc of [a * 40 + b, ...rest]) {
    const septets = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) septets.unshift(0x80 | (v & 0x7f));
    out.push(...septets);
  }
  return tlv(Tag.oid, Uint8Array.from(out));
};

/** UTCTime for 1950 through 2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5), to the second, in UTC. */
export const time = (date: Date): Bytes => {
  const iso = new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString();
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const year = date.getUTCFullYear();
  const utc = year >= 1950 && year < 2050;
  return tlv(utc ? Tag.utcTime : Tag.generalizedTime, new TextEncoder().encode(utc ? digits.slice(2) : digits));
};

/** A frame read back: its tag byte, its content, and the frames inside when it is constructed. */
export interface DerNode {
  readonly tag: number;
  readonly content: Uint8Array;
  readonly children: readonly DerNode[];
}

/** Reads the frames of `der` (definite lengths only, as DER has). */
export const readDer = (der: Uint8Array): DerNode[] => {
  const nodes: DerNode[] = [];
  let at = 0;
  while (at < der.length) {
    const tag = der[at++] ?? 0;
    let length = der[at++] ?? 0;
    if (length & 0x80) {
      const count = length & 0x7f;
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + (der[at++] ?? 0);
    }
    const content = der.subarray(at, at + length);
    if (content.length !== length) throw new RangeError(`a frame of ${length} bytes runs past the end`);
    nodes.push({ tag, content, children: tag & 0x20 ? readDer(content) : [] });
    at += length;
  }
  return nodes;
};

/** Dotted text of an OBJECT IDENTIFIER's content. */
export const oidText = (content: Uint8Array): string => {
  const arcs: number[] = [];
  let v = 0;
  for (const byte of content) {
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(v);
      v = 0;
    }
  }
  const [first = 0, ...rest] = arcs;
  const a = first < 80 ? Math.floor(first / 40) : 2;
  return [a, first - a * 40, ...rest].join(".");
};
