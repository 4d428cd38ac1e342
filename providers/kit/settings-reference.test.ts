import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { referenceProblems, schemaKeys, settingsTable } from "./settings-reference.ts";

describe("referenceProblems", () => {
  const docs = [
    { names: ["A", "B"], default: "`1`", meaning: "a and b" },
    { names: ["C"], default: "not set", meaning: "c" },
  ];
  test.each([
    ["agree", ["A", "B", "C"], []],
    ["a setting read but not documented", ["A", "B", "C", "D"], ["D is read but not documented"]],
    ["a setting documented but not read", ["A", "C"], ["B is documented but not read"]],
  ])("%s", (_name, read, want) => {
    expect(referenceProblems(docs, read)).toEqual(want);
  });

  test("takes a documented section as documenting every key in it", () => {
    const section = [{ names: ["pool"], default: "none", meaning: "`{addresses, share}`" }];
    expect(referenceProblems(section, ["pool.addresses", "pool.share"], ["pool"])).toEqual([]);
  });

  test("names a setting documented twice", () => {
    expect(referenceProblems([...docs, { names: ["C"], default: "", meaning: "" }], ["A", "B", "C"])).toEqual([
      "C is documented more than once",
    ]);
  });
});

describe("settingsTable", () => {
  test("writes the names in code, the default as given and the meaning with its pipes escaped", () => {
    expect(settingsTable([{ names: ["X", "Y"], default: "`0`", meaning: "x | y" }], "key")).toBe(
      ["| key | default | meaning |", "|---|---|---|", "| `X`, `Y` | `0` | x \\| y |"].join("\n"),
    );
  });
});

describe("schemaKeys", () => {
  test("names leaves by path, lists of objects with [], and sections as containers", () => {
    const schema = v.strictObject({
      a: v.optional(v.string(), ""),
      nested: v.optional(v.object({ b: v.boolean(), deeper: v.object({ c: v.number() }) })),
      list: v.pipe(v.array(v.object({ d: v.exactOptional(v.string()) })), v.minLength(1)),
      words: v.array(v.string()),
    });
    expect(schemaKeys(schema)).toEqual({
      leaves: ["a", "nested.b", "nested.deeper.c", "list[].d", "words"],
      containers: ["nested", "nested.deeper", "list", "list[]"],
    });
  });
});
