import { describe, expect, test } from "bun:test";
import { mergePatchOf } from "./merge-patch.ts";

describe("mergePatchOf", () => {
  test.each([
    ["nothing changed", { a: 1, b: { c: [1] } }, { a: 1, b: { c: [1] } }, undefined],
    ["a scalar changed", { a: 1, b: 2 }, { a: 3, b: 2 }, { a: 3 }],
    ["a nested key was added", { m: { l: { x: "1" } } }, { m: { l: { x: "1", y: "2" } } }, { m: { l: { y: "2" } } }],
    ["a key went", { m: { x: "1", y: "2" } }, { m: { x: "1" } }, { m: { y: null } }],
    ["a list is replaced whole", { t: [{ k: "a" }, { k: "b" }] }, { t: [{ k: "b" }] }, { t: [{ k: "b" }] }],
    ["an object appears where there was none", { s: {} }, { s: { p: "x" } }, { s: { p: "x" } }],
    ["a field the base lacks is not touched", { s: { p: "x" } }, { s: { p: "y" } }, { s: { p: "y" } }],
  ])("%s", (_what, before, after, want) => {
    expect(mergePatchOf(before, after)).toEqual(want as never);
  });

  test("refuses anything but two objects", () => {
    expect(() => mergePatchOf([], {})).toThrow("mergePatchOf compares two objects");
  });
});
