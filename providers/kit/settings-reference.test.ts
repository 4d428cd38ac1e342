import { describe, expect, test } from "bun:test";
import { referenceProblems, settingsTable } from "./settings-reference.ts";

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
