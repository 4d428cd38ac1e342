import { describe, expect, test } from "bun:test";
import { type LabelRequirement, readRequirement, requirementHolds, splitRequirements } from "./label-selector.ts";

describe("splitRequirements", () => {
  test.each([
    ["a=b, c in (x,y) ,!d", ["a=b", "c in (x,y)", "!d"]],
    ["a=b,,c", ["a=b", "", "c"]],
    ["", [""]],
  ])("%p splits into %p", (text, parts) => {
    expect(splitRequirements(text)).toEqual(parts);
  });
});

describe("readRequirement", () => {
  test.each<[string, LabelRequirement | undefined]>([
    ["tier", { key: "tier", op: "exists", values: [] }],
    ["!tier", { key: "tier", op: "!exists", values: [] }],
    ["tier=web", { key: "tier", op: "=", values: ["web"] }],
    ["tier == web", { key: "tier", op: "=", values: ["web"] }],
    ["tier!=web", { key: "tier", op: "!=", values: ["web"] }],
    ["size>3", { key: "size", op: ">", values: ["3"] }],
    ["tier in (web, db)", { key: "tier", op: "in", values: ["web", "db"] }],
    ["tier notin ()", { key: "tier", op: "notin", values: [] }],
    ["two words", undefined],
  ])("%p reads as %p", (text, req) => {
    expect(readRequirement(text)).toEqual(req);
  });
});

describe("requirementHolds", () => {
  const labels = { tier: "web", size: "5", odd: "x" };
  test.each<[string, boolean]>([
    ["tier", true],
    ["!tier", false],
    ["!zone", true],
    ["tier=web", true],
    ["zone=web", false],
    ["tier!=db", true],
    ["zone!=db", true],
    ["tier in (web,db)", true],
    ["zone in (web)", false],
    ["tier notin (db)", true],
    ["zone notin (db)", true],
    ["size>3", true],
    ["size<3", false],
    ["odd>3", false],
    ["zone<3", false],
  ])("%p holds: %p", (text, holds) => {
    expect(requirementHolds(readRequirement(text) as LabelRequirement, labels)).toBe(holds);
  });
});
