import { describe, expect, test } from "bun:test";
import { formatGoDuration, goQuote, goStringSlice } from "./go-format.ts";

describe("goQuote", () => {
  test.each([
    ["abc", '"abc"'],
    ["", '""'],
    [' a"b\\', '" a\\"b\\\\"'],
    ["\t\n\x00\x7f", '"\\t\\n\\x00\\x7f"'],
    ["ü\u00a0", '"ü\\u00a0"'],
    ["\u0085\u200b\u{e0001}", '"\\u0085\\u200b\\U000e0001"'],
  ])("quotes %p as Go's %%q does", (text, quoted) => {
    expect(goQuote(text)).toBe(quoted);
  });
});

describe("Go spellings", () => {
  test.each([
    [0, "0s"],
    [0.000001, "1ns"],
    [0.00085, "850ns"],
    [0.0015, "1.5µs"],
    [12.345, "12.345ms"],
    [1000, "1s"],
    [2500, "2.5s"],
    [60_000, "1m0s"],
    [90_000, "1m30s"],
    [7_200_500, "2h0m0.5s"],
    [-1500, "-1.5s"],
  ])("formats %p ms as %p", (ms, want) => {
    expect(formatGoDuration(ms)).toBe(want);
  });

  test("quotes and lists like %q and %v", () => {
    expect(goQuote('a"b\\c\n\x01é')).toBe('"a\\"b\\\\c\\n\\x01é"');
    expect(goStringSlice(["a", "b"])).toBe("[a b]");
    expect(goStringSlice([])).toBe("[]");
  });
});
