import { expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import { createMetricsRegistry } from "../../platform/metrics.ts";
import { uninitializedNodesMetric } from "./uninitialized-metric.ts";

const node = (name: string, ...taints: string[]): Node => ({
  metadata: { name },
  spec: { taints: taints.map((key) => ({ key, effect: "NoSchedule" })) },
});

test("counts the Nodes carrying the uninitialized taint at each scrape, and 0 once unwatched (a standby)", async () => {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const nodes = [node("a", Taints.uninitialized), node("b"), node("c", "other", Taints.uninitialized)];
  const series = async () =>
    ((await registry.getSingleMetric("cloud_node_controller_uninitialized_nodes")?.get())?.values ?? []).map(
      (v) => v.value,
    );
  const unwatch = uninitializedNodesMetric(registry).watch({ list: () => nodes });
  expect(await series()).toEqual([2]);
  nodes.shift();
  expect(await series()).toEqual([1]);
  unwatch();
  expect(await series()).toEqual([0]);
});
