import { describe, expect, test } from "bun:test";
import { againstUpstreamOptions } from "./options.ts";

const parse = (paths: { levelNodes?: string; levels?: string }) =>
  againstUpstreamOptions("1000", "1", false, "0", paths);

describe("the APF level rows' options", () => {
  test("by default 1000 Nodes in the rejecting level, then the queuing one", () => {
    expect(parse({})).toMatchObject({ levelNodes: 1000, levels: ["rejecting", "queuing"] });
  });

  test("--levels picks the levels, in the order given; --level-nodes=0 turns the rows off", () => {
    expect(parse({ levels: "queuing" }).levels).toEqual(["queuing"]);
    expect(parse({ levels: "queuing,rejecting" }).levels).toEqual(["queuing", "rejecting"]);
    expect(parse({ levelNodes: "0" }).levelNodes).toBe(0);
  });

  test.each([
    [{ levels: "queueing" }, '--levels must name rejecting and/or queuing separated by commas, got "queueing"'],
    [{ levels: "" }, '--levels must name rejecting and/or queuing separated by commas, got ""'],
    [{ levelNodes: "-1" }, '--level-nodes must be a whole number ≥ 0, got "-1"'],
    [{ levelNodes: "many" }, '--level-nodes must be a whole number ≥ 0, got "many"'],
  ])("refuses %o naming the flag", (paths, message) => {
    expect(() => parse(paths)).toThrow(message);
  });
});
