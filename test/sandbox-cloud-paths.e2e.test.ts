/**
 * End to end: every path a provider may take, said by the simulated cloud through its REST API
 * (docs/sandbox.md, "Saying what a provider may say"), and what the compiled manager does with it. The compiled
 * all-in-one runs the sandbox without controllers; machines are made and changed over the cloud's API, the
 * sandbox's kubelets register them, and a second compiled process runs the controllers.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Labels, Taints } from "../kube/well-known.ts";
import { SANDBOX_CLUSTER_CIDR } from "../sandbox/names.ts";
import { poll, type RunningProcess } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(180_000);

let sandbox: Sandbox;
let manager: RunningProcess | undefined;
const ids = new Map<string, string>();
const output = () => manager?.output() ?? "";

/** A machine made through the cloud's API, its ID remembered. */
async function machine(name: string, fields: Record<string, unknown> = {}): Promise<string> {
  const { machine } = await sandbox.cloud.call<{ machine: { id: string } }>("POST", "/v1/machines", {
    name,
    ...fields,
  });
  ids.set(name, machine.id);
  return machine.id;
}

const tainted = (n: Node | undefined) => (n?.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const initialised = async (name: string) => {
  const n = await sandbox.node(name);
  return n !== undefined && !tainted(n);
};
const reasons = async (name: string) => (await sandbox.events(name)).map((e) => e.reason);
/** An update of the node, as a kubelet's next status write would be: what the node controller waits for. */
const touch = (name: string) =>
  sandbox.client.patch(Resources.nodes, name, "strategic", { metadata: { labels: { "e2e.ccm.dev/touched": "1" } } });

const cloudLabels = {
  "example.com/rack": "r1",
  "example.com/team": "cloud",
  "kubernetes.io/arch": "sparc",
  "node.kubernetes.io/pool": "big",
  "k8s.io/owner": "cloud",
  "sub.k8s.io/owner": "cloud",
};
const dualStackAddresses = [
  { type: "InternalIP", address: "10.0.9.1" },
  { type: "InternalIP", address: "fd00:9::1" },
  { type: "Hostname", address: "dual-1" },
];

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 0 });
  // Arranged before the controllers start, so each path is met on the node's first sync.
  await machine("pending-1", { metadataPending: true });
  await machine("labelled-1", { labels: cloudLabels });
  await machine("hidden-1", { providerIDHidden: true });
  await machine("hidden-2", { providerIDHidden: true, zone: "zone-c" });
  await machine("dual-1", { addresses: dualStackAddresses });
  await sandbox.cloud.call("PUT", "/v1/settings", { routeNodeAddresses: true });
  for (const name of ids.keys()) {
    await poll(async () => (await sandbox.node(name)) !== undefined, { message: `the kubelet registered ${name}` });
  }
  // The node's own label, which the cloud's different value must not replace; a provider ID kubelet was given.
  await sandbox.client.patch(Resources.nodes, "labelled-1", "strategic", {
    metadata: { labels: { "example.com/team": "ops" } },
  });
  await sandbox.client.patch(Resources.nodes, "hidden-2", "strategic", {
    spec: { providerID: `sandbox://${ids.get("hidden-2")}` },
  });
  manager = await sandbox.startManager(["--controllers=cloud-node,cloud-node-lifecycle,route"], {
    clusterCIDR: SANDBOX_CLUSTER_CIDR,
  });
}, 300_000);

afterAll(async () => {
  await sandbox?.stop();
});

describe("InstancesV2 paths, said by the cloud", () => {
  test("metadata the cloud cannot tell yet (null): the node stays uninitialised with a Warning, and is initialised on its next update once the cloud can tell", async () => {
    await poll(async () => (await reasons("pending-1")).includes("CloudInstanceMetadataUnavailable"), {
      timeoutMs: 60_000,
      message: `a CloudInstanceMetadataUnavailable event on pending-1; manager said:\n${output()}`,
    });
    expect(tainted(await sandbox.node("pending-1"))).toBe(true);
    expect(output()).toContain("node pending-1 stays uninitialized: cloud provider returned no instance metadata");

    await sandbox.cloud.call("PATCH", `/v1/machines/${ids.get("pending-1")}`, { metadataPending: false });
    await touch("pending-1");
    await poll(() => initialised("pending-1"), {
      timeoutMs: 60_000,
      message: `pending-1 initialised after its update; manager said:\n${output()}`,
    });
    expect((await sandbox.node("pending-1"))?.spec?.providerID).toBe(`sandbox://${ids.get("pending-1")}`);
  });

  test("additional labels: set, except kubernetes.io/ and k8s.io/ keys, and a label the node has keeps its value", async () => {
    await poll(() => initialised("labelled-1"), {
      timeoutMs: 60_000,
      message: `labelled-1 initialised; manager said:\n${output()}`,
    });
    const labels = (await sandbox.node("labelled-1"))?.metadata?.labels ?? {};
    expect(labels["example.com/rack"]).toBe("r1");
    expect(labels["example.com/team"]).toBe("ops");
    expect(labels["kubernetes.io/arch"]).toBe("amd64");
    for (const dropped of ["node.kubernetes.io/pool", "k8s.io/owner", "sub.k8s.io/owner"]) {
      expect(labels[dropped]).toBeUndefined();
    }
    expect(labels[Labels.zone]).toBe("zone-a");
    expect(output()).toContain("discarding additional label node.kubernetes.io/pool=big");
    expect(output()).toContain("keeping node label example.com/team=ops; the cloud provider offers cloud");
  });

  test("metadata without a provider ID: a node with its own is initialised and keeps it; one without stays uninitialised with a Warning until the cloud tells", async () => {
    await poll(() => initialised("hidden-2"), {
      timeoutMs: 60_000,
      message: `hidden-2 initialised; manager said:\n${output()}`,
    });
    const kept = await sandbox.node("hidden-2");
    expect(kept?.spec?.providerID).toBe(`sandbox://${ids.get("hidden-2")}`);
    expect(kept?.metadata?.labels?.[Labels.zone]).toBe("zone-c");

    await poll(async () => (await reasons("hidden-1")).includes("CloudProviderIDMissing"), {
      timeoutMs: 60_000,
      message: `a CloudProviderIDMissing event on hidden-1; manager said:\n${output()}`,
    });
    expect(tainted(await sandbox.node("hidden-1"))).toBe(true);
    expect((await sandbox.node("hidden-1"))?.spec?.providerID).toBeUndefined();

    await sandbox.cloud.call("PATCH", `/v1/machines/${ids.get("hidden-1")}`, { providerIDHidden: false });
    await touch("hidden-1");
    await poll(() => initialised("hidden-1"), {
      timeoutMs: 90_000,
      message: `hidden-1 initialised once the cloud tells its provider ID; manager said:\n${output()}`,
    });
    expect((await sandbox.node("hidden-1"))?.spec?.providerID).toBe(`sandbox://${ids.get("hidden-1")}`);
  });
});

describe("routes, said by the cloud", () => {
  const routesOf = async (node: string) =>
    (
      await sandbox.cloud.call<{
        routes: { name: string; targetNode: string; destinationCIDR: string; targetNodeAddresses?: unknown[] }[];
      }>("GET", "/v1/routes")
    ).routes.filter((r) => r.targetNode === node);

  test("a machine with an IPv6 address gets dual-stack pod CIDRs from its kubelet, and a route for each", async () => {
    const node = await sandbox.node("dual-1");
    const podCIDRs = node?.spec?.podCIDRs ?? [];
    expect(podCIDRs).toHaveLength(2);
    expect(podCIDRs[0]).toMatch(/^10\.\d+\.\d+\.0\/24$/);
    expect(podCIDRs[1]).toMatch(/^fd00:10:128:[0-9a-f:]*\/64$/);
    await poll(async () => (await routesOf("dual-1")).length === 2, {
      timeoutMs: 60_000,
      message: `two routes for dual-1; manager said:\n${output()}`,
    });
    expect((await routesOf("dual-1")).map((r) => r.destinationCIDR).sort()).toEqual([...podCIDRs].sort());
    await poll(
      async () =>
        (await sandbox.node("dual-1"))?.status?.conditions?.find((c) => c.type === "NetworkUnavailable")?.status ===
        "False",
      { message: `NetworkUnavailable=False on dual-1; manager said:\n${output()}` },
    );
  });

  test("routes with target node addresses follow the node's addresses: a route whose addresses differ is replaced", async () => {
    const sameAsNode = async () => {
      const addresses = (await sandbox.node("dual-1"))?.status?.addresses ?? [];
      const routes = await routesOf("dual-1");
      return routes.length === 2 && routes.every((r) => Bun.deepEquals(r.targetNodeAddresses, addresses));
    };
    // Initialised, the node has the cloud's addresses; its routes, made with them or remade after, carry them.
    await poll(() => initialised("dual-1"), { timeoutMs: 60_000, message: "dual-1 initialised" });
    await poll(sameAsNode, { timeoutMs: 60_000, message: `dual-1's routes with its addresses:\n${output()}` });
    expect((await sandbox.node("dual-1"))?.status?.addresses).toEqual(
      expect.arrayContaining([{ type: "InternalIP", address: "fd00:9::1" }]),
    );

    // The node's addresses change (as a refresh would write them): both routes are deleted and made anew.
    const names = (await routesOf("dual-1")).map((r) => r.name).sort();
    await sandbox.cloud.call("DELETE", "/v1/calls");
    const changed = [
      { type: "InternalIP", address: "10.0.9.2" },
      { type: "InternalIP", address: "fd00:9::2" },
      { type: "Hostname", address: "dual-1" },
    ];
    await sandbox.client.patch(
      Resources.nodes,
      "dual-1",
      "merge",
      { status: { addresses: changed } },
      { subresource: "status" },
    );
    await poll(
      async () => {
        const routes = await routesOf("dual-1");
        return routes.length === 2 && routes.every((r) => Bun.deepEquals(r.targetNodeAddresses, changed));
      },
      { timeoutMs: 60_000, message: `dual-1's routes remade with the new addresses; manager said:\n${output()}` },
    );
    const writes = (await sandbox.cloud.call<{ writes: { method: string; path: string }[] }>("GET", "/v1/calls/writes"))
      .writes;
    // Other nodes' routes may be remade meanwhile; these two must have been deleted (cloud routes never change).
    const deleted = writes.filter((w) => w.method === "DELETE").map((w) => decodeURIComponent(w.path));
    expect(names.map((n) => `/v1/routes/${n}`).filter((path) => !deleted.includes(path))).toEqual([]);
  });
});

describe("the legacy Instances and Zones path (instances: legacy)", () => {
  test("a node is initialised from the instance ID, addresses, type and zone, and a stopped machine's node is tainted shut down", async () => {
    manager?.proc.kill("SIGKILL");
    await manager?.exited;
    // The older interface cannot say "not yet" nor give labels: neither holds the node back or reaches it.
    await machine("legacy-1", {
      zone: "zone-b",
      region: "sandbox-2",
      instanceType: "sb-large",
      metadataPending: true,
      labels: { "example.com/rack": "r9" },
    });
    await poll(async () => (await sandbox.node("legacy-1")) !== undefined, { message: "legacy-1 registered" });

    const { url, token } = Bun.YAML.parse(await Bun.file(sandbox.cloudConfig).text()) as {
      url: string;
      token: string;
    };
    const cloudConfig = join(sandbox.dir, "legacy-cloud.yaml");
    await writeFile(cloudConfig, `url: ${url}\ntoken: ${token}\ninstances: legacy\n`, { mode: 0o600 });
    manager = await sandbox.startManager([
      "--controllers=cloud-node,cloud-node-lifecycle",
      `--cloud-config=${cloudConfig}`,
    ]);

    await poll(() => initialised("legacy-1"), {
      timeoutMs: 60_000,
      message: `legacy-1 initialised through Instances and Zones; manager said:\n${output()}`,
    });
    const node = await sandbox.node("legacy-1");
    expect(node?.spec?.providerID).toBe(`sandbox://${ids.get("legacy-1")}`);
    expect(node?.metadata?.labels).toMatchObject({
      [Labels.instanceType]: "sb-large",
      [Labels.zone]: "zone-b",
      [Labels.region]: "sandbox-2",
    });
    expect(node?.metadata?.labels?.["example.com/rack"]).toBeUndefined();
    await poll(async () => ((await sandbox.node("legacy-1"))?.status?.addresses ?? []).length > 1, {
      message: "legacy-1's cloud addresses",
    });
    expect((await sandbox.node("legacy-1"))?.status?.addresses).toEqual(
      expect.arrayContaining([{ type: "InternalIP", address: expect.stringMatching(/^10\.0\./) }]),
    );

    await sandbox.cloud.call("PATCH", `/v1/machines/${ids.get("legacy-1")}`, { state: "stopped" });
    await poll(
      async () => ((await sandbox.node("legacy-1"))?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown),
      { timeoutMs: 60_000, message: `legacy-1 tainted shut down; manager said:\n${output()}` },
    );
    await sandbox.cloud.call("DELETE", `/v1/machines/${ids.get("legacy-1")}`);
    await poll(async () => (await sandbox.node("legacy-1")) === undefined, {
      timeoutMs: 60_000,
      message: `legacy-1 deleted once its machine is gone; manager said:\n${output()}`,
    });
  });
});
