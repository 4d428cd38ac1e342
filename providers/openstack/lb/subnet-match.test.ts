import { describe, expect, test } from "bun:test";
import { matchingSubnets, type NamedSubnet, subnetNameMatcher } from "./subnet-match.ts";

const subnets: NamedSubnet[] = [
  { id: "1", name: "public-v4", tags: ["public", "v4"] },
  { id: "2", name: "public-v6", tags: ["public", "v6"] },
  { id: "3", name: "ext", tags: [] },
];
const ids = (pattern?: string, tags?: string) => matchingSubnets(subnets, pattern, tags).map((s) => s.id);

describe("OCCM's floating subnet matching", () => {
  test.each<[string, string | undefined, string | undefined, string[]]>([
    ["a glob matches whole names", "public-*", undefined, ["1", "2"]],
    ["? is one character", "ex?", undefined, ["3"]],
    ["a glob does not match a part", "public", undefined, []],
    ["~ is a regular expression over the whole name", "~public-v[46]", undefined, ["1", "2"]],
    ["a regular expression matching a part only does not count", "~v4", undefined, []],
    ["! negates the pattern", "!public-*", undefined, ["3"]],
    ["tags: any of them", undefined, "v4,v6", ["1", "2"]],
    ["tags after &: all of them", undefined, "&public,v4", ["1"]],
    ["tags after !: none of them", undefined, "!public", ["3"]],
    ["tags after !&: not all of them", undefined, "!&public,v4", ["2", "3"]],
    ["pattern and tags both", "public-*", "v6", ["2"]],
  ])("%s", (_, pattern, tags, expected) => {
    expect(ids(pattern, tags)).toEqual(expected);
  });

  test("a regular expression that does not compile is named", () => {
    expect(subnetNameMatcher("~(x")).toEqual({ problem: expect.stringContaining('"(x" is no regular expression') });
  });
});
