import { describe, expect, test } from "bun:test";
import {
  bitString,
  oid,
  oidText,
  positiveIntegerContent,
  readDer,
  sequence,
  Tag,
  time,
  tlv,
  utf8String,
} from "./der.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

describe("lengths", () => {
  test.each([
    [0, "00"],
    [127, "7f"],
    [128, "8180"],
    [255, "81ff"],
    [256, "820100"],
    [70_000, "83011170"],
  ])("%i content bytes are announced as %s", (length, announced) => {
    const frame = tlv(Tag.octetString, new Uint8Array(length));
    expect(hex(frame.subarray(1, 1 + announced.length / 2))).toBe(announced);
    expect(frame.length).toBe(1 + announced.length / 2 + length);
  });
});

describe("positive integers", () => {
  test.each([
    ["01", "01"],
    ["7f", "7f"],
    ["80", "0080"],
    ["ff00", "00ff00"],
    ["0080", "0080"],
    ["00007f", "7f"],
    ["000001", "01"],
    ["0000", "00"],
    ["", "00"],
  ])("magnitude %p is written as the minimal content %p", (magnitude, content) => {
    expect(hex(positiveIntegerContent(bytes(magnitude)))).toBe(content);
  });
});

describe("object identifiers", () => {
  test.each([
    ["2.5.4.3", "0603550403"],
    ["1.2.840.10045.4.3.2", "06082a8648ce3d040302"],
    ["1.3.6.1.5.5.7.3.1", "06082b06010505070301"],
    ["2.999.3", "0603883703"],
  ])("%s is %s and reads back", (dotted, der) => {
    expect(hex(oid(dotted))).toBe(der);
    expect(oidText(readDer(oid(dotted))[0]!.content)).toBe(dotted);
  });
});

describe("times", () => {
  test.each([
    ["2026-01-01T00:00:00.789Z", Tag.utcTime, "260101000000Z"],
    ["1950-01-01T00:00:00Z", Tag.utcTime, "500101000000Z"],
    ["2049-12-31T23:59:59.999Z", Tag.utcTime, "491231235959Z"],
    ["2050-01-01T00:00:00Z", Tag.generalizedTime, "20500101000000Z"],
    ["2051-06-15T12:30:45.500Z", Tag.generalizedTime, "20510615123045Z"],
    ["1949-12-31T23:59:59Z", Tag.generalizedTime, "19491231235959Z"],
  ])("%s is tag %i with %p, to the second", (iso, tag, text) => {
    const der = time(new Date(iso));
    expect([der[0], der[1], Buffer.from(der.subarray(2)).toString("latin1")]).toEqual([tag, text.length, text]);
  });
});

describe("reading frames back", () => {
  test("nested constructed frames come back as children, primitive ones as content", () => {
    const der = sequence(utf8String("é"), sequence(bitString(Uint8Array.of(0xa0), 5)));
    const [outer] = readDer(der);
    expect(outer?.tag).toBe(Tag.sequence);
    expect(outer?.children.map((c) => c.tag)).toEqual([Tag.utf8String, Tag.sequence]);
    expect(Buffer.from(outer!.children[0]!.content).toString("utf8")).toBe("é");
    expect(hex(outer!.children[1]!.children[0]!.content)).toBe("05a0");
  });

  test("a frame that claims more bytes than there are is refused", () => {
    expect(() => readDer(bytes("0405aabb"))).toThrow(RangeError);
  });
});
