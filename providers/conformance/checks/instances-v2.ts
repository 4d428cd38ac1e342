/**
 * InstancesV2: existence, power state and metadata for running, stopped, deleted and never-created machines, found
 * by provider ID and by name alone. Each check follows one machine, so a cloud with per-machine answers and one
 * with a single global answer are told apart only where the contract needs more than one machine.
 */
import type { Node } from "../../../kube/objects.ts";
import type { InstanceMetadata, InstancesV2 } from "../../cloud.ts";
import { answer, describeNode, must, mustThrowInstanceNotFound, show } from "../contract.ts";
import { nodeByName, nodeByProviderID } from "../fixtures.ts";
import type { ArrangedMachine, Check, CheckContext } from "../types.ts";

function v2(t: CheckContext): InstancesV2 {
  const api = t.provider.instancesV2;
  must(api !== undefined, "provider.instancesV2 disappeared between calls; a capability must not change");
  return api;
}

async function exists(t: CheckContext, node: Node): Promise<boolean> {
  return answer(`instancesV2.instanceExists(${describeNode(node)})`, () => v2(t).instanceExists(t.ctx, node));
}

async function shutdown(t: CheckContext, node: Node): Promise<boolean> {
  return answer(`instancesV2.instanceShutdown(${describeNode(node)})`, () => v2(t).instanceShutdown(t.ctx, node));
}

/** Metadata that must be there: `null` ("cannot tell yet") is wrong for a machine the arrange step finished. */
async function metadata(t: CheckContext, node: Node): Promise<InstanceMetadata> {
  const what = `instancesV2.instanceMetadata(${describeNode(node)})`;
  const meta = await answer(what, () => v2(t).instanceMetadata(t.ctx, node));
  must(meta !== null, `${what} answered null ("cannot tell yet") for a machine that exists and is settled`);
  return meta;
}

async function mustExist(t: CheckContext, node: Node, state: "running" | "stopped"): Promise<void> {
  const why = state === "stopped" ? " (a stopped instance still exists; false deletes its Node)" : "";
  must(
    await exists(t, node),
    `instanceExists must be true for a ${state} machine${why}; got false for ${describeNode(node)}`,
  );
  const off = await shutdown(t, node);
  must(
    off === (state === "stopped"),
    `instanceShutdown must be ${!off} for a ${state} machine; got ${off} for ${describeNode(node)}`,
  );
}

async function mustBeGone(t: CheckContext, node: Node, state: string): Promise<void> {
  must(
    !(await exists(t, node)),
    `instanceExists must be false (not an error) for a ${state} machine; got true for ${describeNode(node)}`,
  );
  await mustThrowInstanceNotFound(`instancesV2.instanceMetadata for a ${state} machine (${describeNode(node)})`, () =>
    v2(t).instanceMetadata(t.ctx, node),
  );
}

function mustReportProviderID(meta: InstanceMetadata, machine: ArrangedMachine, node: Node): void {
  must(
    meta.providerID === machine.providerID,
    `instanceMetadata.providerID must be the machine's provider ID ${show(machine.providerID)}; got ${show(meta.providerID)} for ${describeNode(node)}`,
  );
}

async function running(t: CheckContext): Promise<ArrangedMachine> {
  return t.arrange.createMachine({ name: t.uniqueName() });
}

async function stopped(t: CheckContext): Promise<ArrangedMachine> {
  const m = await running(t);
  await t.arrange.stopMachine(m);
  return m;
}

async function deleted(t: CheckContext): Promise<ArrangedMachine> {
  const m = await running(t);
  await t.arrange.deleteMachine(m);
  return m;
}

/** One metadata field that must be non-empty, by provider ID. */
function completeness(field: "instanceType" | "zone" | "region", label: string): Check {
  return {
    id: `instancesV2/metadata-${label}`,
    capability: "instancesV2",
    title: `instanceMetadata reports a non-empty ${field}`,
    async run(t) {
      const node = nodeByProviderID(await running(t));
      const meta = await metadata(t, node);
      must(
        typeof meta[field] === "string" && meta[field] !== "",
        `instanceMetadata.${field} must be non-empty (empty leaves the node's label unset); got ${show(meta[field])} for ${describeNode(node)}`,
      );
    },
  };
}

const addressTypes = new Set(["Hostname", "InternalIP", "ExternalIP", "InternalDNS", "ExternalDNS"]);

export const instancesV2Checks: readonly Check[] = [
  {
    id: "instancesV2/running",
    capability: "instancesV2",
    title: "a running machine exists, is not shut down, and has metadata (by provider ID)",
    async run(t) {
      const m = await running(t);
      const node = nodeByProviderID(m);
      await mustExist(t, node, "running");
      mustReportProviderID(await metadata(t, node), m, node);
    },
  },
  {
    id: "instancesV2/stopped",
    capability: "instancesV2",
    title: "a stopped machine exists, is shut down, and still has metadata (by provider ID)",
    async run(t) {
      const m = await stopped(t);
      const node = nodeByProviderID(m);
      await mustExist(t, node, "stopped");
      mustReportProviderID(await metadata(t, node), m, node);
    },
  },
  {
    id: "instancesV2/deleted",
    capability: "instancesV2",
    title: "a deleted machine does not exist and its metadata throws InstanceNotFoundError (by provider ID)",
    async run(t) {
      await mustBeGone(t, nodeByProviderID(await deleted(t)), "deleted");
    },
  },
  {
    id: "instancesV2/running-by-name",
    capability: "instancesV2",
    title: "a node without provider ID is found by name, with the machine's provider ID",
    async run(t) {
      const m = await running(t);
      const node = nodeByName(m.nodeName);
      await mustExist(t, node, "running");
      mustReportProviderID(await metadata(t, node), m, node);
    },
  },
  {
    id: "instancesV2/stopped-by-name",
    capability: "instancesV2",
    title: "a stopped machine found by name exists and is shut down",
    async run(t) {
      await mustExist(t, nodeByName((await stopped(t)).nodeName), "stopped");
    },
  },
  {
    id: "instancesV2/deleted-by-name",
    capability: "instancesV2",
    title: "a deleted machine looked up by name does not exist and throws InstanceNotFoundError",
    async run(t) {
      await mustBeGone(t, nodeByName((await deleted(t)).nodeName), "deleted");
    },
  },
  {
    id: "instancesV2/unknown-name",
    capability: "instancesV2",
    title: "a name no machine ever had does not exist and throws InstanceNotFoundError, while another machine runs",
    async run(t) {
      await running(t);
      await mustBeGone(t, nodeByName(t.uniqueName()), "never-created");
    },
  },
  {
    id: "instancesV2/provider-id",
    capability: "instancesV2",
    title: "the provider ID round-trips: found by name, then by that ID, it stays the same",
    async run(t) {
      const m = await running(t);
      const byName = nodeByName(m.nodeName);
      const first = (await metadata(t, byName)).providerID;
      const again = (await metadata(t, byName)).providerID;
      must(first === again, `instanceMetadata.providerID must be stable; got ${show(first)}, then ${show(again)}`);
      must(first !== "", "instanceMetadata.providerID must be non-empty for a node that has none yet");
      const byID = { ...byName, spec: { providerID: first } };
      const back = (await metadata(t, byID)).providerID;
      must(
        back === first,
        `instanceMetadata.providerID looked up by its own ID must be the same; got ${show(back)} for ${show(first)}`,
      );
      must(first === m.providerID, `instanceMetadata.providerID must be ${show(m.providerID)}; got ${show(first)}`);
    },
  },
  completeness("instanceType", "instance-type"),
  completeness("zone", "zone"),
  completeness("region", "region"),
  {
    id: "instancesV2/metadata-addresses",
    capability: "instancesV2",
    title: "instanceMetadata reports node addresses of known types",
    async run(t) {
      const node = nodeByProviderID(await running(t));
      const { nodeAddresses } = await metadata(t, node);
      must(
        nodeAddresses.length > 0,
        `instanceMetadata.nodeAddresses must be non-empty (empty leaves the node's addresses as the kubelet set them) for ${describeNode(node)}`,
      );
      for (const a of nodeAddresses) {
        must(
          addressTypes.has(a.type) && a.address !== "",
          `instanceMetadata.nodeAddresses entries need a known type and an address; got ${show(a)}`,
        );
      }
    },
  },
];
