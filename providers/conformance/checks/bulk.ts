/**
 * `instanceMetadataBulk`: one call for many nodes must agree with the single lookups, machine by machine, and with
 * what the cloud holds (running, stopped, deleted, never created; by provider ID and by name).
 */
import type { Node } from "../../../kube/objects.ts";
import type { BulkInstanceInfo } from "../../cloud.ts";
import { answer, describeNode, must, show } from "../contract.ts";
import { nodeByName, nodeByProviderID } from "../fixtures.ts";
import type { Check, CheckContext } from "../types.ts";

interface Expected {
  readonly node: Node;
  readonly state: "running" | "stopped" | "deleted" | "never created";
  readonly providerID?: string;
}

async function arrangeMix(t: CheckContext): Promise<Expected[]> {
  const a = await t.arrange.createMachine({ name: t.uniqueName() });
  const b = await t.arrange.createMachine({ name: t.uniqueName() });
  const c = await t.arrange.createMachine({ name: t.uniqueName() });
  const e = await t.arrange.createMachine({ name: t.uniqueName() });
  await t.arrange.stopMachine(b);
  await t.arrange.deleteMachine(c);
  return [
    { node: nodeByProviderID(a), state: "running", providerID: a.providerID },
    { node: nodeByProviderID(b), state: "stopped", providerID: b.providerID },
    { node: nodeByProviderID(c), state: "deleted" },
    { node: nodeByName(t.uniqueName()), state: "never created" },
    { node: nodeByName(e.nodeName), state: "running", providerID: e.providerID },
  ];
}

/** The entry must say what the cloud holds. */
function mustMatchCloud(x: Expected, info: BulkInstanceInfo | null): void {
  const who = `instanceMetadataBulk for a ${x.state} machine (${describeNode(x.node)})`;
  if (x.state === "deleted" || x.state === "never created") {
    must(info === null, `${who} must be null (instance not found); got ${show(info)}`);
    return;
  }
  must(info !== null, `${who} must not be null: the machine exists`);
  must(
    info.shutdown === (x.state === "stopped"),
    `${who}: shutdown must be ${x.state === "stopped"}; got ${info.shutdown}`,
  );
  must(
    info.metadata.providerID === x.providerID,
    `${who}: metadata.providerID must be ${show(x.providerID)}; got ${show(info.metadata.providerID)}`,
  );
}

/** The entry must say what the single lookups say. */
async function mustMatchSingle(t: CheckContext, x: Expected, info: BulkInstanceInfo | null): Promise<void> {
  const api = t.provider.instancesV2!;
  const who = `instanceMetadataBulk for ${describeNode(x.node)}`;
  const exists = await answer(`instancesV2.instanceExists(${describeNode(x.node)})`, () =>
    api.instanceExists(t.ctx, x.node),
  );
  must((info !== null) === exists, `${who} is ${show(info)} but instanceExists says ${exists}; they must agree`);
  if (info === null) return;
  const shutdown = await answer("instancesV2.instanceShutdown", () => api.instanceShutdown(t.ctx, x.node));
  must(info.shutdown === shutdown, `${who}: shutdown ${info.shutdown} but instanceShutdown says ${shutdown}`);
  const single = await answer("instancesV2.instanceMetadata", () => api.instanceMetadata(t.ctx, x.node));
  must(
    Bun.deepEquals(info.metadata, single),
    `${who}: metadata ${show(info.metadata)} differs from instanceMetadata's ${show(single)}`,
  );
}

export const bulkChecks: readonly Check[] = [
  {
    id: "instancesV2.bulk/consistent",
    capability: "instancesV2.bulk",
    title:
      "one bulk lookup agrees with the cloud and with the single lookups for running, stopped, deleted and unknown machines",
    async run(t) {
      const bulk = t.provider.instancesV2?.instanceMetadataBulk;
      must(bulk !== undefined, "instancesV2.instanceMetadataBulk disappeared between calls");
      const expected = await arrangeMix(t);
      const nodes = expected.map((x) => x.node);
      const result = await answer(`instancesV2.instanceMetadataBulk(${nodes.length} nodes)`, () =>
        bulk.call(t.provider.instancesV2, t.ctx, nodes),
      );
      must(result instanceof Map, `instanceMetadataBulk must resolve to a Map; got ${show(result)}`);
      const names = new Set(nodes.map((n) => n.metadata?.name));
      for (const key of result.keys()) {
        must(names.has(key), `instanceMetadataBulk answered for ${show(key)}, which is not one of the nodes asked for`);
      }
      const first = expected[0]!;
      must(
        result.has(first.node.metadata?.name ?? ""),
        `instanceMetadataBulk must answer at least for a running machine asked by provider ID (${describeNode(first.node)}); a bulk lookup that answers nothing only adds calls`,
      );
      for (const x of expected) {
        const name = x.node.metadata?.name ?? "";
        if (!result.has(name)) continue; // left out ⇒ looked up one by one, which the contract allows
        const info = result.get(name) ?? null;
        mustMatchCloud(x, info);
        await mustMatchSingle(t, x, info);
      }
    },
  },
];
