/** Whose a load balancer is, decided from the reads: a table of what was found and what follows. */
import { expect, test } from "bun:test";
import type { CloudLoadBalancer } from "../api/load-balancers.ts";
import { clusterTag, decideOwnership, type Ownership } from "./ownership.ts";

const lb = (id: string, name: string, tags: string[]) => ({ id, name, tags }) as unknown as CloudLoadBalancer;
const mine = { clusterTag: "k8s:c", serviceTag: "ccm-service:u" };
const kinds = (o: Ownership) => (o.kind === "none" ? "none" : `${o.kind} ${o.lb.id}`);

test.each([
  ["nothing found", {}, [], "none"],
  ["the Service's tag, whatever the name", {}, [lb("1", "other", ["ccm-service:u"])], "own 1"],
  ["the name and the cluster's tag", {}, [lb("1", "web", ["k8s:c"])], "adopt 1"],
  ["the name without the cluster's tag", {}, [lb("1", "web", ["k8s:other"])], "refuse 1"],
  ["the name and another Service's tag", {}, [lb("1", "web", ["k8s:c", "ccm-service:x"])], "refuse 1"],
  ["the ID, untagged", { byID: lb("9", "legacy", []) }, [], "adopt 9"],
  ["the ID of another Service's", { byID: lb("9", "legacy", ["ccm-service:x"]) }, [], "refuse 9"],
  ["the default name when the annotated one is free", {}, [lb("2", "a-default", ["k8s:c"])], "adopt 2"],
] as const)("%s", (_name, found, all, want) => {
  const decided = decideOwnership({ ...found, all: [...all], names: ["web", "a-default"], ...mine });
  expect(kinds(decided)).toBe(want);
});

test("two load balancers with the Service's tag are an error naming both", () => {
  const all = [lb("1", "a", ["ccm-service:u"]), lb("2", "b", ["ccm-service:u"])];
  expect(() => decideOwnership({ all, names: ["web"], ...mine })).toThrow("1 (a), 2 (b)");
});

test("the cluster tag holds only what a tag may", () => {
  expect(clusterTag("my cluster/1")).toBe("k8s:my-cluster-1");
});
