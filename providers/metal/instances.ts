/**
 * InstancesV2 for bare metal. A node's metadata comes from its inventory entry; each field the entry leaves out,
 * and every field of a node without an entry, comes from what the node reports itself (its status addresses, its
 * own zone/region/instance-type labels, provider ID `metal://<node name>`), unless `requireInventoryEntry` is on.
 *
 * Existence: a bare-metal node is never deleted because nobody described it. Only with
 * `deleteNodesMissingFromInventory: true`, and only when every inventory source has been read, is a node without an
 * entry reported as not existing. Shutdown: only with `shutdownProbe` configured, by a TCP connection attempt.
 */
import type { ConsolaInstance } from "consola";
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { Annotations, Conditions, Labels } from "../../kube/well-known.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError } from "../errors.ts";
import type { ProviderApiMetrics } from "../kit/metrics.ts";
import type { Inventory, Lookup } from "./inventory.ts";
import type { Machine } from "./machine-schema.ts";
import { type Connect, probeTCP } from "./probe.ts";
import { formatProviderID } from "./provider-id.ts";

export interface InstancesOptions {
  readonly requireInventoryEntry: boolean;
  readonly deleteNodesMissingFromInventory: boolean;
  /** Where the inventory ConfigMap is, for messages (`kube-system/metal-inventory`). */
  readonly configMapName?: string | undefined;
  readonly shutdownProbe?: { readonly port: number; readonly timeoutMs: number } | undefined;
  readonly connect: Connect;
  /**
   * Records every finished probe as the `probe` operation; one that gets no answer counts as an error, so the error
   * ratio is the share of probed machines that did not answer.
   */
  readonly metrics?: ProviderApiMetrics;
  /** Parallel probes of one bulk call. */
  readonly probeConcurrency?: number;
  readonly logger?: () => ConsolaInstance | undefined;
}

export function createInstances(inventory: Inventory, options: InstancesOptions): InstancesV2 {
  const where = options.configMapName
    ? `inventory.machines in the cloud-config or the ConfigMap ${options.configMapName}`
    : "inventory.machines in the cloud-config";

  function metadata(node: Node, found: Lookup): InstanceMetadata {
    const name = node.metadata?.name ?? "";
    if (found.kind === "invalid") {
      throw new Error(`the inventory entry for node "${name}" is invalid: ${found.problems.join("; ")}`);
    }
    if (found.kind === "absent" && options.requireInventoryEntry) {
      const pending = inventory.incomplete();
      const detail = `node "${name}" has no inventory entry and requireInventoryEntry is true; add it to ${where}`;
      throw new InstanceNotFoundError(pending ? `${detail} (${pending})` : detail);
    }
    return metadataOf(node, found.kind === "machine" ? found.machine : undefined);
  }

  function exists(node: Node, found: Lookup): boolean {
    if (found.kind !== "absent" || !options.deleteNodesMissingFromInventory) return true;
    const pending = inventory.incomplete();
    if (pending) {
      throw new Error(`not reporting node "${node.metadata?.name ?? ""}" as missing from the inventory: ${pending}`);
    }
    return false;
  }

  async function shutdown(ctx: CallContext, node: Node, found: Lookup): Promise<boolean> {
    const probe = options.shutdownProbe;
    if (!probe) return false;
    const machine = found.kind === "machine" ? found.machine : undefined;
    const host = machine?.probe?.host ?? probeHost(machine?.addresses ?? [], node);
    if (!host) {
      options.logger?.()?.debug(`node ${node.metadata?.name ?? ""}: no address to probe; not reporting a shutdown`);
      return false;
    }
    const port = machine?.probe?.port ?? probe.port;
    const started = performance.now();
    const result = await probeTCP(options.connect, host, port, probe.timeoutMs, ctx.signal);
    options.metrics?.observe("probe", (performance.now() - started) / 1000, result.answered ? "ok" : "error");
    if (!result.answered) {
      options.logger?.()?.info(`node ${node.metadata?.name ?? ""}: ${host}:${port} does not answer (${result.reason})`);
    }
    return !result.answered;
  }

  return {
    async instanceExists(_ctx, node) {
      return exists(node, inventory.lookup(node));
    },

    async instanceShutdown(ctx, node) {
      return shutdown(ctx, node, inventory.lookup(node));
    },

    async instanceMetadata(_ctx, node) {
      return metadata(node, inventory.lookup(node));
    },

    /**
     * Answers from the inventory for every node it can; nodes whose entry is unreadable, or that need an entry
     * they lack, are left out (the per-node call reports why). Only NotReady nodes are probed: the lifecycle
     * controller never asks about Ready ones.
     */
    async instanceMetadataBulk(ctx, nodes) {
      const out = new Map<string, BulkInstanceInfo | null>();
      const probes: (() => Promise<void>)[] = [];
      for (const node of nodes) {
        const name = node.metadata?.name;
        if (!name) continue;
        const found = inventory.lookup(node);
        let info: InstanceMetadata;
        try {
          if (!exists(node, found)) {
            out.set(name, null);
            continue;
          }
          info = metadata(node, found);
        } catch {
          continue;
        }
        out.set(name, { metadata: info, shutdown: false });
        if (options.shutdownProbe && !isReady(node)) {
          probes.push(async () => {
            out.set(name, { metadata: info, shutdown: await shutdown(ctx, node, found) });
          });
        }
      }
      await runLimited(probes, options.probeConcurrency ?? 16);
      return out;
    },
  } satisfies InstancesV2;
}

/** The entry's fields, each missing one taken from the node itself. */
export function metadataOf(node: Node, machine: Machine | undefined): InstanceMetadata {
  const labels = node.metadata?.labels ?? {};
  const name = node.metadata?.name ?? "";
  return {
    providerID: machine?.providerID ?? node.spec?.providerID ?? safeProviderID(name),
    instanceType: machine?.instanceType ?? labels[Labels.instanceType] ?? "",
    nodeAddresses: machine && machine.addresses.length > 0 ? [...machine.addresses] : reportedAddresses(node),
    zone: machine?.zone ?? labels[Labels.zone] ?? "",
    region: machine?.region ?? labels[Labels.region] ?? "",
    ...(machine && Object.keys(machine.labels).length > 0 ? { additionalLabels: { ...machine.labels } } : {}),
  };
}

/** The node's status addresses; before kubelet reported any, its `--node-ip` (the provided-node-ip annotation). */
function reportedAddresses(node: Node): NodeAddress[] {
  const status = node.status?.addresses ?? [];
  if (status.length > 0) return status.map((a) => ({ type: a.type, address: a.address }));
  const provided = node.metadata?.annotations?.[Annotations.providedNodeIP];
  return (provided ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((address) => ({ type: "InternalIP", address }));
}

function probeHost(machineAddresses: readonly NodeAddress[], node: Node): string | undefined {
  const addresses = machineAddresses.length > 0 ? machineAddresses : reportedAddresses(node);
  return (
    addresses.find((a) => a.type === "InternalIP")?.address ?? addresses.find((a) => a.type === "ExternalIP")?.address
  );
}

function isReady(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === Conditions.ready && c.status === "True");
}

function safeProviderID(name: string): string {
  try {
    return formatProviderID(name);
  } catch {
    return "";
  }
}

async function runLimited(tasks: readonly (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}
