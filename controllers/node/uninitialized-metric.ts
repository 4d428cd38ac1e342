/**
 * `cloud_node_controller_uninitialized_nodes`: how many Nodes carry the cloud provider's `uninitialized` taint, read
 * from the node informer's cache at each scrape. Not an upstream metric (upstream only logs): it is what the
 * "nodes stuck uninitialised" alert of `deploy/monitoring/` watches. Only the leader, whose cloud-node controller
 * runs, counts; a standby reports 0 (alert on the `max` over replicas).
 */
import { Gauge, type Registry } from "prom-client";
import type { Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import { perRegistry } from "../../platform/metrics.ts";

export interface UninitializedNodesMetric {
  /** Report from `lister` until the returned function is called. */
  watch(lister: { list(): Node[] }): () => void;
}

const tainted = (node: Node) => (node.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);

export const uninitializedNodesMetric = (registry: Registry): UninitializedNodesMetric =>
  perRegistry(registry, "uninitialized-nodes", () => {
    let source: { list(): Node[] } | undefined;
    new Gauge({
      name: "cloud_node_controller_uninitialized_nodes",
      help: `Nodes carrying the ${Taints.uninitialized} taint, from the cloud-node controller's cache (not upstream).`,
      registers: [registry],
      collect() {
        this.reset();
        if (source) this.set(source.list().filter(tainted).length);
      },
    });
    return {
      watch(lister) {
        source = lister;
        return () => {
          if (source === lister) source = undefined;
        };
      },
    };
  });
