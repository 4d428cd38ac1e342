import { describe, expect, test } from "bun:test";
import type { Obj } from "./json.ts";
import { resolveResource } from "./resources.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { ApiError } from "./status-errors.ts";

const withLabels = (labels: Record<string, string>): Obj => ({ metadata: { name: "o", labels } });

describe("label selectors", () => {
  const objs = {
    prod: withLabels({ env: "prod", tier: "web", n: "5" }),
    dev: withLabels({ env: "dev" }),
    bare: withLabels({}),
  };
  test.each([
    ["env=prod", ["prod"]],
    ["env==prod", ["prod"]],
    ["env!=prod", ["dev", "bare"]],
    ["env in (prod, dev)", ["prod", "dev"]],
    ["env notin (prod)", ["dev", "bare"]],
    ["tier", ["prod"]],
    ["!tier", ["dev", "bare"]],
    ["env=prod,tier=web", ["prod"]],
    ["env in (prod,dev),!tier", ["dev"]],
    ["n>4", ["prod"]],
    ["n<4", []],
    ["", ["prod", "dev", "bare"]],
  ])("%s", (selector, want) => {
    const match = parseLabelSelector(selector);
    const got = Object.entries(objs)
      .filter(([, o]) => !match || match(o))
      .map(([k]) => k);
    expect(got).toEqual(want);
  });

  test.each(["env=a b", "bad key!=x", "env in ()", "env in (a"])("rejects %p with 400", (selector) => {
    try {
      parseLabelSelector(selector);
      throw new Error("expected an error");
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe(400);
    }
  });
});

describe("field selectors", () => {
  const events = resolveResource({ group: "", plural: "events" });
  const ev: Obj = {
    metadata: { name: "e1", namespace: "default" },
    involvedObject: { kind: "Node", name: "n1", namespace: "", uid: "u1" },
    reason: "Hello, world",
    type: "Normal",
  };
  test.each([
    ["metadata.name=e1", true],
    ["metadata.name!=e1", false],
    ["involvedObject.kind=Node,involvedObject.name=n1", true],
    ["involvedObject.namespace=", true],
    ["involvedObject.uid==u1,type=Warning", false],
    ["reason=Hello\\, world", true],
  ])("%s on an event ⇒ %p", (selector, want) => {
    expect(parseFieldSelector(events, selector)?.(ev)).toBe(want);
  });

  test("events.k8s.io events select by regarding.* (read from the stored involvedObject)", () => {
    const v1 = resolveResource({ group: "events.k8s.io", plural: "events" });
    expect(parseFieldSelector(v1, "regarding.name=n1,reportingController=")?.(ev)).toBe(true);
  });

  test("an unsupported field is a 400 naming it, as the real server answers", () => {
    const nodes = resolveResource({ group: "", plural: "nodes" });
    try {
      parseFieldSelector(nodes, "spec.providerID=x");
      throw new Error("expected an error");
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).toStatus()).toMatchObject({
        code: 400,
        reason: "BadRequest",
        message: "field label not supported: spec.providerID",
      });
    }
  });
});
