import { describe, expect, test } from "bun:test";
import { applyJsonPatch, applyMergePatch, PatchError } from "./json-patch.ts";

const doc = () => ({ a: 1, list: ["x", "y"], obj: { k: "v", "s/l": 2, "t~": 3 } });

describe("JSON patch (RFC 6902)", () => {
  test.each([
    ["add to an object", [{ op: "add", path: "/b", value: 2 }], { ...doc(), b: 2 }],
    ["add inserts into an array", [{ op: "add", path: "/list/1", value: "z" }], { ...doc(), list: ["x", "z", "y"] }],
    ["add with - appends", [{ op: "add", path: "/list/-", value: "z" }], { ...doc(), list: ["x", "y", "z"] }],
    ["remove a member", [{ op: "remove", path: "/a" }], { list: ["x", "y"], obj: doc().obj }],
    ["remove an element", [{ op: "remove", path: "/list/0" }], { ...doc(), list: ["y"] }],
    ["replace", [{ op: "replace", path: "/a", value: 9 }], { ...doc(), a: 9 }],
    [
      "escaped pointers (~1 is /, ~0 is ~)",
      [
        { op: "replace", path: "/obj/s~1l", value: 5 },
        { op: "remove", path: "/obj/t~0" },
      ],
      { ...doc(), obj: { k: "v", "s/l": 5 } },
    ],
    ["move", [{ op: "move", from: "/a", path: "/obj/a" }], { list: ["x", "y"], obj: { ...doc().obj, a: 1 } }],
    ["copy", [{ op: "copy", from: "/list", path: "/copy" }], { ...doc(), copy: ["x", "y"] }],
    ["test that passes", [{ op: "test", path: "/obj/k", value: "v" }], doc()],
    ["replace the whole document", [{ op: "replace", path: "", value: { only: true } }], { only: true }],
  ])("%s", (_name, patch, want) => {
    const input = doc();
    expect(applyJsonPatch(input, patch)).toEqual(want);
    expect(input).toEqual(doc()); // never mutates its input
  });

  test.each([
    ["a failed test", [{ op: "test", path: "/a", value: 2 }], false],
    ["replace of a missing member", [{ op: "replace", path: "/nope", value: 1 }], false],
    ["remove of a missing member", [{ op: "remove", path: "/nope" }], false],
    ["an index out of bounds", [{ op: "add", path: "/list/5", value: 1 }], false],
    ["add under a missing parent", [{ op: "add", path: "/x/y", value: 1 }], false],
    ["an unknown op", [{ op: "frobnicate", path: "/a" }], true],
    ["a patch that is not a list", { op: "add" }, true],
    ["a pointer without a leading slash", [{ op: "add", path: "a", value: 1 }], true],
    ["add without a value", [{ op: "add", path: "/a" }], true],
  ])("rejects %s", (_name, patch, malformed) => {
    try {
      applyJsonPatch(doc(), patch);
      throw new Error("expected a PatchError");
    } catch (err) {
      expect(err).toBeInstanceOf(PatchError);
      expect((err as PatchError).malformed).toBe(malformed);
    }
  });
});

describe("merge patch (RFC 7386)", () => {
  test.each([
    ["merges objects recursively", { obj: { n: 1 } }, { ...doc(), obj: { ...doc().obj, n: 1 } }],
    ["null deletes", { a: null, obj: { k: null } }, { list: ["x", "y"], obj: { "s/l": 2, "t~": 3 } }],
    ["lists are replaced whole", { list: ["q"] }, { ...doc(), list: ["q"] }],
    ["scalars replace objects", { obj: 7 }, { ...doc(), obj: 7 }],
  ])("%s", (_name, patch, want) => {
    const input = doc();
    expect(applyMergePatch(input, patch)).toEqual(want);
    expect(input).toEqual(doc());
  });
});
