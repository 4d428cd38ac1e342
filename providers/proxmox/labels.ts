/**
 * The provider's labels (the peer's keys, so selectors written for it keep working) and the relabelling of
 * initialised Nodes after a VM moved: a pure planner; the provider applies its answer.
 */
import type { Node } from "../../kube/objects.ts";
import { Labels, Taints } from "../../kube/well-known.ts";
import type { InstanceMetadata } from "../cloud.ts";

export const ProxmoxLabels = {
  region: "topology.proxmox.sinextra.dev/region",
  zone: "topology.proxmox.sinextra.dev/zone",
  /** `group.topology.proxmox.sinextra.dev/<HA group>: ""`, one per HA group holding the VM's Proxmox node. */
  haGroupPrefix: "group.topology.proxmox.sinextra.dev/",
} as const;

/** The labels a VM's metadata carries as `additionalLabels`. */
export function vmLabels(region: string, zone: string, haGroups: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = { [ProxmoxLabels.region]: region, [ProxmoxLabels.zone]: zone };
  for (const g of haGroups) labels[`${ProxmoxLabels.haGroupPrefix}${g}`] = "";
  return labels;
}

/**
 * The labels to patch onto an initialised Node so they match its VM now, or `undefined` when they already do (or
 * the node is not initialised yet: the node controller sets its labels then). The provider's own zone and region
 * labels always follow the VM; the Kubernetes topology labels only with `force` (`features.force_update_labels`),
 * since volumes may be bound to the old zone.
 */
export function planRelabel(
  node: Node,
  metadata: InstanceMetadata,
  force: boolean,
): Record<string, string> | undefined {
  if (node.spec?.taints?.some((t) => t.key === Taints.uninitialized)) return undefined;
  const want: Record<string, string> = {};
  if (metadata.zone) want[ProxmoxLabels.zone] = metadata.zone;
  if (metadata.region) want[ProxmoxLabels.region] = metadata.region;
  if (force && metadata.zone)
    Object.assign(want, { [Labels.zone]: metadata.zone, [Labels.zoneDeprecated]: metadata.zone });
  if (force && metadata.region) {
    Object.assign(want, { [Labels.region]: metadata.region, [Labels.regionDeprecated]: metadata.region });
  }
  const have = node.metadata?.labels ?? {};
  const patch = Object.fromEntries(Object.entries(want).filter(([k, val]) => have[k] !== val));
  return Object.keys(patch).length > 0 ? patch : undefined;
}
