/**
 * InstancesV2 for the sandbox cloud: a node's machine is the one named by `spec.providerID`, or, while the node
 * has no provider ID yet, the machine whose name is the node's name.
 *
 * A node that has a provider ID is never matched by name: if its machine is gone, a new machine that happens to
 * reuse the name is a different instance, and the node must be reported as not existing.
 *
 * The metadata says what the cloud says of the machine, all of it programmable through the cloud's API: `null`
 * while its metadata is pending, no provider ID when the cloud hides it, its labels as additional labels.
 */

import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../errors.ts";
import type { SandboxApi, SandboxMachine } from "./api/client.ts";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

export interface InstancesOptions {
  /** Page size of the bulk listing; the simulated cloud accepts up to 1000. */
  readonly perPage?: number;
}

export function createInstances(api: SandboxApi, options: InstancesOptions = {}) {
  const perPage = options.perPage ?? 500;

  /** The node's machine, or undefined when it has none. Throws on an unreadable provider ID or a failed call. */
  async function findMachine(ctx: CallContext, node: Node): Promise<SandboxMachine | undefined> {
    const providerID = node.spec?.providerID;
    if (providerID) return api.getMachine(ctx, parseProviderID(providerID));
    const name = node.metadata?.name;
    if (!name) throw new Error("the node has neither a provider ID nor a name");
    const page = await api.listMachines(ctx, { page: 1, perPage: 1, name });
    return page.machines[0];
  }

  /** `findMachine` with failures prefixed by the operation and the node. */
  async function lookUp(ctx: CallContext, node: Node, op: string): Promise<SandboxMachine | undefined> {
    try {
      return await findMachine(ctx, node);
    } catch (err) {
      throw wrapError(`sandbox/instances.${op} ${describe(node)}`, err);
    }
  }

  return {
    async instanceExists(ctx, node) {
      return (await lookUp(ctx, node, "instanceExists")) !== undefined;
    },

    /** A missing machine is not "shut down": the lifecycle controller deletes such nodes through instanceExists. */
    async instanceShutdown(ctx, node) {
      return (await lookUp(ctx, node, "instanceShutdown"))?.state === "stopped";
    },

    async instanceMetadata(ctx, node) {
      const machine = await lookUp(ctx, node, "instanceMetadata");
      if (!machine) throw new InstanceNotFoundError(describe(node));
      return machine.metadataPending ? null : metadataOf(machine);
    },

    /** One paged listing of every machine: ceil(machines / perPage) calls, whatever the number of nodes. */
    async instanceMetadataBulk(ctx, nodes) {
      const byID = new Map<string, SandboxMachine>();
      const byName = new Map<string, SandboxMachine>();
      try {
        for (let page: number | null = 1; page !== null; ) {
          const answer = await api.listMachines(ctx, { page, perPage });
          for (const m of answer.machines) {
            byID.set(m.id, m);
            byName.set(m.name, m);
          }
          page = answer.nextPage;
        }
      } catch (err) {
        throw wrapError(`sandbox/instances.instanceMetadataBulk (${nodes.length} nodes)`, err);
      }
      const result = new Map<string, BulkInstanceInfo | null>();
      for (const node of nodes) {
        const name = node.metadata?.name;
        const providerID = node.spec?.providerID;
        // Nodes the listing cannot answer for are left out; the per-node path reports why.
        const id = providerID ? safeParse(providerID) : undefined;
        if (!name || (providerID && id === undefined)) continue;
        const machine = id === undefined ? byName.get(name) : byID.get(id);
        // A pending machine has no metadata to give; left out, so the per-node path answers its `null`.
        if (machine?.metadataPending) continue;
        result.set(name, machine ? { metadata: metadataOf(machine), shutdown: machine.state === "stopped" } : null);
      }
      return result;
    },
  } satisfies InstancesV2;
}

function metadataOf(machine: SandboxMachine): InstanceMetadata {
  return {
    providerID: machine.providerIDHidden ? "" : formatProviderID(machine.id),
    instanceType: machine.instanceType,
    nodeAddresses: machine.addresses.map((a) => ({ type: a.type, address: a.address })),
    zone: machine.zone,
    region: machine.region,
    ...(Object.keys(machine.labels).length > 0 && { additionalLabels: { ...machine.labels } }),
  };
}

function safeParse(providerID: string): string | undefined {
  try {
    return parseProviderID(providerID);
  } catch {
    return undefined;
  }
}

function describe(node: Node): string {
  const name = node.metadata?.name ?? "(unnamed)";
  return node.spec?.providerID ? `node "${name}" (${node.spec.providerID})` : `node "${name}"`;
}
