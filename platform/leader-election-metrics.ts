/**
 * client-go's leader-election metrics (k8s.io/component-base/metrics/prometheus/clientgo/leaderelection), with
 * upstream's names and labels; `name` is the Lease's name (`--leader-elect-resource-name`):
 *
 * - `leader_election_master_status{name}`: 1 while this process leads, 0 while it stands by. Flapping shows as
 *   `changes()` over it; "no leader" as its `max` over the replicas being 0.
 * - `leader_election_slowpath_total{name}`: renewals by the leader that had to read the Lease first because the
 *   optimistic write of the record it last saw failed (someone else wrote the Lease, or the API server failed).
 */
import { Counter, Gauge, type Registry } from "prom-client";
import { alpha, perRegistry } from "./metrics.ts";

export interface LeaderElectionMetrics {
  leading(name: string, leading: boolean): void;
  slowpath(name: string): void;
}

export const leaderElectionMetrics = (registry: Registry): LeaderElectionMetrics =>
  perRegistry(registry, "leader-election", () => {
    const status = new Gauge({
      name: "leader_election_master_status",
      help: alpha(
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      ),
      labelNames: ["name"],
      registers: [registry],
    });
    const slow = new Counter({
      name: "leader_election_slowpath_total",
      help: alpha(
        "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
      ),
      labelNames: ["name"],
      registers: [registry],
    });
    return {
      leading: (name, leading) => status.set({ name }, leading ? 1 : 0),
      slowpath: (name) => slow.inc({ name }),
    };
  });
