/**
 * syncNode and the periodic refresh end to end over the fake cloud, the way the runner strings the pieces
 * together (gather → plan → apply → address update), without Kubernetes: what a node looks like afterwards,
 * which error the sync returns, and which cloud calls were made.
 */
import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { Labels, Taints } from "../../kube/well-known.ts";
import { NotImplementedError } from "../../providers/errors.ts";
import type { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { fetchInitializationMetadata, getRefreshMetadata } from "./metadata.ts";
import {
  addr,
  addresses,
  cloudAddresses,
  ctx,
  labels,
  legacyCloud,
  node,
  providedNodeIP,
  providerID,
  taint,
  uninitialized,
  v2Cloud,
} from "./node-fixtures.ts";
import {
  applyModifiers,
  awaitingInitialization,
  planAddressUpdate,
  planInitialization,
  planLabelReconciliation,
} from "./plan.ts";

interface SyncOutcome {
  node: Node;
  error?: Error;
  writes: number;
}

async function sync(cloud: FakeCloud, n: Node): Promise<SyncOutcome> {
  if (awaitingInitialization(n) === undefined) {
    const toSet = planLabelReconciliation(n);
    if (!toSet) return { node: n, writes: 0 };
    const out = applyModifiers(n, [(c) => Object.assign(c.metadata?.labels ?? {}, toSet)]).node;
    return { node: out, writes: 1 };
  }
  let md: Awaited<ReturnType<typeof fetchInitializationMetadata>>;
  try {
    md = await fetchInitializationMetadata(cloud, ctx(), n);
  } catch (error) {
    return { node: n, error: error as Error, writes: 0 };
  }
  const plan = planInitialization(n, md);
  if (plan.kind === "wait") return { node: n, writes: 0 };
  if (plan.kind === "error") return { node: n, error: plan.error, writes: 0 };
  const updated = applyModifiers(n, plan.modifiers).node;
  const addressPlan = planAddressUpdate(updated, md);
  if (addressPlan.kind === "skip") return { node: updated, writes: 1 };
  return { node: { ...updated, status: { ...updated.status, addresses: addressPlan.addresses } }, writes: 2 };
}

describe("syncNode over the fake cloud", () => {
  test("initialises a tainted node from InstancesV2: provider ID, labels, addresses, taint gone", async () => {
    const cloud = v2Cloud((c) => {
      c.providerID = { n1: "fake://i-1" };
      c.zone = { failureDomain: "z1", region: "r1" };
      c.additionalLabels = { "topology.k8s.cp/zone-id": "az1", "k8s.io/x": "no" };
    });
    const out = await sync(cloud, node("n1", uninitialized, taint("keep")));
    expect(out.error).toBeUndefined();
    expect(out.node.spec).toEqual({ providerID: "fake://i-1", taints: [{ key: "keep", effect: "NoSchedule" }] });
    expect(out.node.metadata?.labels).toEqual({
      [Labels.zone]: "z1",
      [Labels.zoneDeprecated]: "z1",
      [Labels.region]: "r1",
      [Labels.regionDeprecated]: "r1",
      "topology.k8s.cp/zone-id": "az1",
    });
    expect(out.node.status?.addresses).toEqual(cloudAddresses);
    expect(out.writes).toBe(2);
    expect(cloud.callNames()).toEqual(["instance-metadata-by-provider-id"]);
  });

  test("sets the instance type looked up by the node's provider ID", async () => {
    const cloud = v2Cloud((c) => (c.instanceTypes = { "fake://i-1": "big" }));
    const out = await sync(cloud, node("n1", uninitialized, providerID("fake://i-1")));
    expect(out.node.metadata?.labels).toEqual({ [Labels.instanceType]: "big", [Labels.instanceTypeDeprecated]: "big" });
    expect(out.node.spec?.providerID).toBe("fake://i-1");
  });

  test("leaves an initialised node to label reconciliation, without asking the cloud", async () => {
    const cloud = v2Cloud();
    const out = await sync(cloud, node("n1", labels({ [Labels.zoneDeprecated]: "z" })));
    expect(out.node.metadata?.labels?.[Labels.zone]).toBe("z");
    expect(cloud.calls).toHaveLength(0);
    expect((await sync(cloud, out.node)).writes).toBe(0);
  });

  test("keeps the node tainted without an error on null metadata", async () => {
    const cloud = v2Cloud((c) => c.override("instanceMetadata", async () => null));
    const out = await sync(cloud, node("n1", uninitialized));
    expect(out).toEqual({ node: node("n1", uninitialized), writes: 0 });
  });

  test("returns the metadata error and leaves the node untouched", async () => {
    const out = await sync(
      v2Cloud((c) => (c.metadataErr = new Error("boom"))),
      node("n1", uninitialized),
    );
    expect(out.error?.message).toBe("failed to get instance metadata for node n1: boom");
    expect(out.writes).toBe(0);
  });

  test("initialises with the node's own provider ID when InstancesV2 gives none", async () => {
    const out = await sync(v2Cloud(), node("n1", uninitialized, providerID("fake://mine")));
    expect(out.error).toBeUndefined();
    expect(out.node.spec?.providerID).toBe("fake://mine");
  });

  test("fails, tainted, when neither InstancesV2 nor the node has a provider ID", async () => {
    const out = await sync(v2Cloud(), node("n1", uninitialized));
    expect(out.error?.message).toBe(
      "failed to get instance metadata for node n1: cloud provider does not set node provider ID for node n1",
    );
    expect(out.node.spec?.taints?.[0]?.key).toBe(Taints.uninitialized);
  });

  test("legacy: provider ID from instanceID, instance type, zone and region from Zones", async () => {
    const cloud = legacyCloud((c) => {
      c.extID = { n1: "i-1" };
      c.instanceTypes = { "fake://i-1": "big" };
      c.zone = { failureDomain: "z1", region: "r1" };
    });
    const out = await sync(cloud, node("n1", uninitialized));
    expect(out.node.spec?.providerID).toBe("fake://i-1");
    expect(out.node.metadata?.labels).toMatchObject({
      [Labels.instanceType]: "big",
      [Labels.zone]: "z1",
      [Labels.region]: "r1",
    });
    expect(cloud.callNames()).toEqual([
      "instance-id",
      "node-addresses-by-provider-id",
      "instance-type-by-provider-id",
      "get-zone-by-provider-id",
    ]);
  });

  test("legacy: a cloud without instance IDs still initialises, without a provider ID", async () => {
    const out = await sync(
      legacyCloud((c) => (c.extIDErr = { n1: new NotImplementedError() })),
      node("n1", uninitialized),
    );
    expect(out.error).toBeUndefined();
    expect(out.node.spec?.providerID).toBeUndefined();
    expect(out.node.spec?.taints).toEqual([]);
  });

  test("legacy: without Zones no zone labels are set", async () => {
    const cloud = legacyCloud((c) => {
      c.disableZones = true;
      c.zone = { failureDomain: "z1", region: "r1" };
    });
    const out = await sync(cloud, node("n1", uninitialized, providerID("fake://i-1")));
    expect(out.node.metadata?.labels).toBeUndefined();
  });

  test("applies a matching provided node IP to the addresses written right after initialisation", async () => {
    const cloud = v2Cloud((c) => (c.addresses = [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "10.0.0.2")]));
    const n = node("n1", uninitialized, providerID("p"), providedNodeIP("10.0.0.2"), addresses(addr("Hostname", "h")));
    const out = await sync(cloud, n);
    expect(out.node.status?.addresses).toEqual([addr("InternalIP", "10.0.0.2"), addr("Hostname", "h")]);
  });

  test.each([
    ["an IP the cloud does not have", "10.0.0.9", cloudAddresses],
    ["an IP, while the cloud returns no addresses", "10.0.0.1", []],
  ])("refuses to initialise with %s", async (_, ip, cloudAddrs) => {
    const n = node("n1", uninitialized, providerID("p"), providedNodeIP(ip));
    const out = await sync(
      v2Cloud((c) => (c.addresses = cloudAddrs)),
      n,
    );
    expect(out.error?.message).toBe(
      `failed to get node modifiers from cloud provider: provided node ip for node "n1" is not valid: failed to get node address from cloud provider that matches ip: ${ip}`,
    );
    expect(out.node).toEqual(n);
  });
});

describe("periodic address refresh over the fake cloud", () => {
  test("makes no write for unchanged nodes and updates a changed one", async () => {
    const cloud = v2Cloud((c) => (c.enableBulk = true));
    cloud.existsByProviderID = true;
    const nodes = [
      node("same", providerID("p1"), addresses(...cloudAddresses)),
      node("moved", providerID("p2"), addresses(addr("InternalIP", "10.9.9.9"))),
      node("new", uninitialized),
    ];
    const refreshable = nodes.filter((n) => awaitingInitialization(n) === undefined);
    const answers = await getRefreshMetadata(cloud, ctx(), refreshable);
    const plans = refreshable.map((n) => {
      const answer = answers.get(n.metadata?.name ?? "");
      return answer?.kind === "metadata" ? planAddressUpdate(n, answer.metadata) : undefined;
    });
    expect(plans.map((p) => p?.kind)).toEqual(["skip", "update"]);
    expect(cloud.callNames()).toEqual(["instance-metadata-bulk"]);
  });

  test("skips a node whose instance the bulk answer does not know", async () => {
    const cloud = v2Cloud((c) => (c.enableBulk = true));
    const n = node("gone", providerID("p"), addresses(...cloudAddresses));
    const answer = (await getRefreshMetadata(cloud, ctx(), [n])).get("gone");
    expect(answer).toEqual({ kind: "metadata", metadata: null });
    expect(planAddressUpdate(n, null).kind).toBe("skip");
  });
});
