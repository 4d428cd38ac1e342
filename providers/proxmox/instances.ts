/**
 * InstancesV2 for Proxmox VE: the node's VM is found as find.ts says; region = the VM's cluster, zone = its
 * Proxmox node (or HA group), instance type from the SMBIOS `sku` or the VM's size, addresses as addresses.ts says.
 * A VM whose Proxmox node is offline (`status: unknown`) exists, is not shut down, and has no metadata yet.
 */
import type { ConsolaInstance } from "consola";
import type { Node } from "../../kube/objects.ts";
import { Annotations } from "../../kube/well-known.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../errors.ts";
import { nodeAddresses } from "./addresses.ts";
import type { AgentInterface, ProxmoxVM } from "./api/client.ts";
import type { Clusters, Listing } from "./clusters.ts";
import type { ProxmoxConfig } from "./config.ts";
import { type Found, findVM } from "./find.ts";
import { vmLabels } from "./labels.ts";
import { formatProviderID, formatUUIDProviderID } from "./provider-id.ts";

export interface InstancesOptions {
  readonly features: ProxmoxConfig["features"];
  readonly logger?: () => ConsolaInstance | undefined;
  /** Told each node's metadata after a bulk lookup (the provider relabels migrated VMs' nodes from it). */
  readonly afterBulk?: (answers: readonly { node: Node; metadata: InstanceMetadata }[]) => Promise<void>;
}

const SKU = /^[a-zA-Z0-9_.-]+$/;
const GIB = 2 ** 30;

/** The peer's instance type: the SMBIOS sku when it is a plain name, else `<vCPUs>VCPU-<GiB>GB`. */
export function instanceTypeOf(vm: Pick<ProxmoxVM, "maxcpu" | "maxmem">, sku: string | undefined): string {
  if (sku !== undefined && SKU.test(sku)) return sku;
  return `${vm.maxcpu}VCPU-${Math.floor(vm.maxmem / GIB)}GB`;
}

export function createInstances(clusters: Clusters, options: InstancesOptions) {
  const { features } = options;
  const mode = features.network.mode;
  /** VMs whose agent failed, warned about once (qemu mode) until it answers again. */
  const agentless = new Set<string>();

  async function lookUp(ctx: CallContext, node: Node, op: string, listings?: readonly Listing[]): Promise<Found> {
    try {
      return await findVM(ctx, clusters, node, listings);
    } catch (err) {
      throw wrapError(`proxmox/instances.${op} ${describe(node)}`, err);
    }
  }

  /** The guest agent's interfaces, or `undefined` when it does not answer (logged; never fatal, as in the peer). */
  async function agentOf(ctx: CallContext, region: string, vm: ProxmoxVM): Promise<AgentInterface[] | undefined> {
    if (mode === "default" || vm.status !== "running") return undefined;
    const key = `${region}/${vm.vmid}`;
    try {
      const interfaces = await clusters.get(region)!.api.agentInterfaces(ctx, vm.node, vm.vmid);
      agentless.delete(key);
      return interfaces;
    } catch (err) {
      const log = options.logger?.();
      const line = `no guest-agent addresses for VM ${key}, using the kubelet's: ${(err as Error).message}`;
      if (mode === "qemu" && !agentless.has(key)) log?.warn(line);
      else log?.debug(line);
      agentless.add(key);
      return undefined;
    }
  }

  async function haGroupsOf(ctx: CallContext, region: string, vm: ProxmoxVM): Promise<string[]> {
    if (!features.ha_group) return [];
    const groups = await clusters.get(region)!.api.haGroups(ctx);
    return groups
      .filter((g) => g.nodes.includes(vm.node))
      .map((g) => g.group)
      .sort();
  }

  /** Metadata of a found VM; `null` while its Proxmox node is offline; throws `InstanceNotFoundError` if it left. */
  async function metadataOf(ctx: CallContext, node: Node, region: string, vm: ProxmoxVM) {
    if (vm.status === "unknown") return null;
    const config = await clusters.config(ctx, region, vm);
    if (!config) throw new InstanceNotFoundError(describe(node));
    const [agent, groups] = await Promise.all([agentOf(ctx, region, vm), haGroupsOf(ctx, region, vm)]);
    if (features.ha_group && groups.length === 0) {
      throw new Error(`Proxmox node "${vm.node}" of VM ${region}/${vm.vmid} is in no HA group, and ha_group is on`);
    }
    const zone = features.ha_group ? groups[0]! : vm.node;
    const name = node.metadata?.name ?? vm.name;
    const capmox = features.provider === "capmox" && config.uuid !== undefined;
    return {
      providerID: capmox ? formatUUIDProviderID(config.uuid!) : formatProviderID(region, vm.vmid),
      instanceType: instanceTypeOf(vm, config.sku),
      nodeAddresses: nodeAddresses(
        name,
        node.metadata?.annotations?.[Annotations.providedNodeIP],
        agent,
        features.network,
      ),
      zone,
      region,
      additionalLabels: vmLabels(region, zone, groups),
    } satisfies InstanceMetadata;
  }

  return {
    async instanceExists(ctx, node) {
      return (await lookUp(ctx, node, "instanceExists")).kind === "found";
    },

    async instanceShutdown(ctx, node) {
      const found = await lookUp(ctx, node, "instanceShutdown");
      return found.kind === "found" && found.vm.status === "stopped";
    },

    async instanceMetadata(ctx, node) {
      const found = await lookUp(ctx, node, "instanceMetadata");
      if (found.kind === "gone") throw new InstanceNotFoundError(`${describe(node)}: ${found.why}`);
      try {
        return await metadataOf(ctx, node, found.region, found.vm);
      } catch (err) {
        if (err instanceof InstanceNotFoundError) throw err;
        throw wrapError(`proxmox/instances.instanceMetadata ${describe(node)}`, err);
      }
    },

    /**
     * One listing per cluster for every node. Nodes whose cluster did not answer, or whose VM's details failed,
     * are left out of the map: the per-node path then reports why.
     */
    async instanceMetadataBulk(ctx, nodes) {
      const listings = await clusters.listings(ctx);
      const result = new Map<string, BulkInstanceInfo | null>();
      const answered: { node: Node; metadata: InstanceMetadata }[] = [];
      await Promise.all(
        nodes.map(async (node) => {
          const name = node.metadata?.name;
          if (!name) return;
          try {
            const found = await findVM(ctx, clusters, node, listings);
            if (found.kind === "gone") {
              result.set(name, null);
              return;
            }
            const metadata = await metadataOf(ctx, node, found.region, found.vm);
            if (metadata === null) return;
            result.set(name, { metadata, shutdown: found.vm.status === "stopped" });
            answered.push({ node, metadata });
          } catch (err) {
            if (err instanceof InstanceNotFoundError) result.set(name, null);
          }
        }),
      );
      await options.afterBulk?.(answered);
      return result;
    },
  } satisfies InstancesV2;
}

function describe(node: Node): string {
  const name = node.metadata?.name ?? "(unnamed)";
  return node.spec?.providerID ? `node "${name}" (${node.spec.providerID})` : `node "${name}"`;
}
