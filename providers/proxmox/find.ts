/**
 * Which VM is a Node's (docs/providers/proxmox.md, "Finding a node's VM"):
 *
 * - `proxmox://<region>/<vmid>`: that VM in that region's cluster (every cluster when the region is empty), if its
 *   name starts with the Node's name, as the peer checks, so a VM ID reused by another VM is not taken for it.
 * - `proxmox://<UUID>` or no provider ID: the QEMU VM (not a template) named like the Node (exactly, else by
 *   prefix: `<node>.` without a UUID) in any cluster; when the Node reports a system UUID (or the provider ID is one), only a VM whose SMBIOS
 *   UUID is that one, and when no name matches, any VM with that UUID.
 *
 * A VM is "gone" only when every cluster that could hold it answered; a cluster that does not answer makes the
 * answer "cannot tell" (an error), so no Node is deleted while its cluster is unreachable.
 */
import type { Node } from "../../kube/objects.ts";
import type { CallContext } from "../cloud.ts";
import type { ProxmoxVM } from "./api/client.ts";
import type { Clusters, Listing } from "./clusters.ts";
import { parseProviderID } from "./provider-id.ts";

export type Found =
  | { readonly kind: "found"; readonly region: string; readonly vm: ProxmoxVM }
  | { readonly kind: "gone"; readonly why: string };

/** The Node's VM from `listings` (all clusters for a name lookup); throws when a cluster needed did not answer. */
export async function findVM(
  ctx: CallContext,
  clusters: Clusters,
  node: Node,
  listings?: readonly Listing[],
): Promise<Found> {
  const name = node.metadata?.name ?? "";
  const providerID = node.spec?.providerID;
  const parsed = providerID ? parseProviderID(providerID) : undefined;
  if (parsed?.kind === "vm") {
    if (parsed.region !== "" && !clusters.get(parsed.region)) {
      throw new Error(
        `region "${parsed.region}" of provider ID ${providerID} is not configured (clusters: ${clusters.regions.join(", ")}); add its cluster to the cloud-config`,
      );
    }
    const regions = parsed.region === "" ? clusters.regions : [parsed.region];
    const answered = await answeredListings(ctx, clusters, regions, listings);
    for (const l of answered) {
      const vm = l.vms.find((x) => x.vmid === parsed.vmid && x.type === "qemu");
      if (vm?.name.startsWith(name)) return { kind: "found", region: l.region, vm };
      if (vm) return { kind: "gone", why: `VM ${parsed.vmid} in ${l.region} is now named "${vm.name}"` };
    }
    return { kind: "gone", why: `no VM ${parsed.vmid} in ${regions.join(", ")}` };
  }
  const uuid = parsed?.kind === "uuid" ? parsed.uuid : node.status?.nodeInfo?.systemUUID?.toLowerCase() || undefined;
  const all = await allListings(ctx, clusters, listings);
  // Without a UUID to confirm it, a prefix match must end at a dot (`worker-1.lab` for `worker-1`): `worker-10`
  // must not stand in for a deleted `worker-1`.
  const prefix = uuid === undefined ? `${name}.` : name;
  const named = (exact: boolean) =>
    all.answered.flatMap((l) =>
      l.vms
        .filter((vm) => vm.type === "qemu" && !vm.template && (exact ? vm.name === name : vm.name.startsWith(prefix)))
        .map((vm) => ({ region: l.region, vm })),
    );
  let candidates = named(true);
  if (candidates.length === 0) candidates = named(false);
  if (uuid !== undefined) {
    candidates = await withUUID(ctx, clusters, candidates, uuid);
    if (candidates.length === 0) {
      const every = all.answered.flatMap((l) =>
        l.vms.filter((vm) => vm.type === "qemu" && !vm.template).map((vm) => ({ region: l.region, vm })),
      );
      candidates = await withUUID(ctx, clusters, every, uuid);
    }
  }
  if (candidates.length > 1) {
    const where = candidates.map((c) => `${c.region}/${c.vm.vmid} "${c.vm.name}"`).join(", ");
    throw new Error(`several VMs match node "${name}" (${where}); give the node its provider ID or system UUID`);
  }
  const [hit] = candidates;
  if (hit) return { kind: "found", ...hit };
  if (all.failed.length > 0) {
    const first = all.failed[0]!;
    throw new Error(
      `no VM for node "${name}" in the clusters that answered, and ${all.failed.map((f) => f.region).join(", ")} did not: ${first.error.message}`,
      { cause: first.error },
    );
  }
  const by = uuid === undefined ? `named "${name}"` : `named "${name}" or with system UUID ${uuid}`;
  return { kind: "gone", why: `no VM ${by} in ${clusters.regions.join(", ")}` };
}

async function withUUID(
  ctx: CallContext,
  clusters: Clusters,
  candidates: readonly { region: string; vm: ProxmoxVM }[],
  uuid: string,
): Promise<{ region: string; vm: ProxmoxVM }[]> {
  const out: { region: string; vm: ProxmoxVM }[] = [];
  for (const c of candidates) {
    // A VM on an offline Proxmox node cannot show its config; it is not this node's unless named so.
    if (c.vm.status === "unknown") continue;
    const config = await clusters.config(ctx, c.region, c.vm);
    if (config?.uuid === uuid) out.push(c);
  }
  return out;
}

type Answered = Extract<Listing, { vms: readonly ProxmoxVM[] }>;
type Failed = Extract<Listing, { error: Error }>;

async function allListings(ctx: CallContext, clusters: Clusters, given: readonly Listing[] | undefined) {
  const listings = given ?? (await clusters.listings(ctx));
  return {
    answered: listings.filter((l): l is Answered => l.error === undefined),
    failed: listings.filter((l): l is Failed => l.error !== undefined),
  };
}

/** The listings of `regions`; throws the first failure (the VM could be in that cluster). */
async function answeredListings(
  ctx: CallContext,
  clusters: Clusters,
  regions: readonly string[],
  given: readonly Listing[] | undefined,
): Promise<Answered[]> {
  const listings = given ? given.filter((l) => regions.includes(l.region)) : await clusters.listings(ctx, regions);
  const failed = listings.find((l): l is Failed => l.error !== undefined);
  if (failed) throw failed.error;
  return listings as Answered[];
}
