/**
 * The range allocator's metrics, with upstream's names (including its `cirdset_max_cidrs` spelling), labels, buckets
 * and help texts (upstream: pkg/controller/nodeipam/ipam/cidrset/metrics.go).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { alpha, exponentialBuckets, perRegistry } from "../../platform/metrics.ts";
import type { CidrSetObserver } from "./cidr-set.ts";

const SUBSYSTEM = "node_ipam_controller";
const labelNames = ["clusterCIDR"] as const;

export const cidrSetMetrics = (registry: Registry): CidrSetObserver =>
  perRegistry(registry, "cidrset", () => {
    const registers = [registry];
    const allocations = new Counter({
      name: `${SUBSYSTEM}_cidrset_cidrs_allocations_total`,
      help: alpha("Counter measuring total number of CIDR allocations."),
      labelNames,
      registers,
    });
    const releases = new Counter({
      name: `${SUBSYSTEM}_cidrset_cidrs_releases_total`,
      help: alpha("Counter measuring total number of CIDR releases."),
      labelNames,
      registers,
    });
    const max = new Gauge({
      name: `${SUBSYSTEM}_cirdset_max_cidrs`,
      help: alpha("Maximum number of CIDRs that can be allocated."),
      labelNames,
      registers,
    });
    const usage = new Gauge({
      name: `${SUBSYSTEM}_cidrset_usage_cidrs`,
      help: alpha("Gauge measuring percentage of allocated CIDRs."),
      labelNames,
      registers,
    });
    const tries = new Histogram({
      name: `${SUBSYSTEM}_cidrset_allocation_tries_per_request`,
      // Upstream's help text, copied there from another metric.
      help: alpha("Number of endpoints added on each Service sync"),
      buckets: exponentialBuckets(1, 5, 5),
      labelNames,
      registers,
    });
    return {
      allocated: (clusterCIDR, count) => allocations.inc({ clusterCIDR }, count),
      released: (clusterCIDR, count) => releases.inc({ clusterCIDR }, count),
      usage: (clusterCIDR, fraction) => usage.set({ clusterCIDR }, fraction),
      tries: (clusterCIDR, skipped) => tries.observe({ clusterCIDR }, skipped),
      max: (clusterCIDR, subnets) => max.set({ clusterCIDR }, subnets),
    };
  });
