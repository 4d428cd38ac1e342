/**
 * End to end: the compiled `hcloud-cloud-controller-manager`, run with hccm's own flags and environment,
 * against the API emulator and the hcloud and Robot emulators. First a hybrid cluster (Cloud and Robot servers,
 * `HCLOUD_NETWORK` for the private IPs, routes off as hccm requires with Robot): nodes initialised as hccm
 * initialises them, hccm's Warning events on Robot nodes, a shut-down server's node tainted, a deleted server's node
 * deleted, a Robot node kept through Robot's outage. Then routes in the network: one per pod CIDR, stale ones
 * removed, the operator's own kept. Last, a bad variable stops the executable with the variable named.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { deleteServer, power } from "../sandbox/hcloud/state/servers.ts";
import { startE2eApiServer, stopManager, tearDown } from "./support/apiserver.ts";
import { executable, runExecutable } from "./support/executables.ts";
import {
  type HcloudWorld,
  hcloudManagerCommand,
  registerNode,
  robotPassword,
  robotUser,
  startHcloudWorld,
} from "./support/hcloud.ts";
import { freePort, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";

let api: ApiServer;
let client: KubeClient;
let world: HcloudWorld;
let dir = "";
let manager: RunningProcess | undefined;
const tail = () => manager?.output().slice(-3000) ?? "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-hcloud-"));
  world = startHcloudWorld();
  ({ api, client } = await startE2eApiServer(dir));
}, 60_000);

afterAll(() => tearDown(manager, [api, world], dir));

async function startManager(env: Record<string, string>, extra: string[] = []): Promise<void> {
  await stopManager(manager, "SIGTERM");
  const flags = ["--node-status-update-frequency=1s", ...extra];
  manager = spawnCollecting(await hcloudManagerCommand(join(dir, "kubeconfig"), flags), env);
}

const nodeNamed = (name: string): Node | undefined => {
  try {
    return api.store.get(Resources.nodes, name) as Node;
  } catch {
    return undefined;
  }
};

async function until(what: string, check: () => boolean, timeoutMs = 60_000) {
  await poll(check, { timeoutMs, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${tail()}`);
  });
}
const untilNode = (name: string, what: string, check: (n: Node | undefined) => boolean) =>
  until(`${name}: ${what}; node: ${JSON.stringify(nodeNamed(name))}`, () => check(nodeNamed(name)));

const initialised = (n: Node | undefined) =>
  n !== undefined && !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const addresses = (n: Node | undefined) => (n?.status?.addresses ?? []).map((a) => `${a.type} ${a.address}`);
const tainted = (n: Node | undefined) => (n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown);

test("hybrid cluster: Cloud and Robot nodes initialised with hccm's provider IDs, labels and addresses", async () => {
  const cloud1 = world.addServer("cloud-1");
  world.addServer("cloud-2");
  const dedicated = world.robot.state.addServer({ name: "robot-1", product: "AX41-NVMe", dc: "FSN1-DC10" });
  for (const name of ["cloud-1", "cloud-2", "robot-1"]) await registerNode(client, name);
  await startManager(
    world.env({
      HCLOUD_NETWORK_ROUTES_ENABLED: "false",
      ROBOT_ENABLED: "true",
      ROBOT_USER: robotUser,
      ROBOT_PASSWORD: robotPassword,
      ROBOT_ENDPOINT: world.robot.url,
      ROBOT_CACHE_TIMEOUT: "1s",
    }),
  );
  for (const name of ["cloud-1", "cloud-2", "robot-1"]) await untilNode(name, "initialised", initialised);

  const c = nodeNamed("cloud-1")!;
  expect(c.spec?.providerID).toBe(`hcloud://${cloud1.id}`);
  expect(c.metadata?.labels).toMatchObject({
    "node.kubernetes.io/instance-type": "cx22",
    "topology.kubernetes.io/region": "fsn1",
    "topology.kubernetes.io/zone": "fsn1-dc14",
    "instance.hetzner.cloud/provided-by": "cloud",
  });
  const privateIP = cloud1.private_net[0]!.ip;
  const publicIP = cloud1.public_net.ipv4!.ip;
  expect(addresses(c)).toEqual(["Hostname cloud-1", `ExternalIP ${publicIP}`, `InternalIP ${privateIP}`]);

  const r = nodeNamed("robot-1")!;
  expect(r.spec?.providerID).toBe(`hrobot://${dedicated.number}`);
  expect(r.metadata?.labels).toMatchObject({
    "node.kubernetes.io/instance-type": "AX41-NVMe",
    "topology.kubernetes.io/region": "fsn1",
    "topology.kubernetes.io/zone": "fsn1-dc10",
    "instance.hetzner.cloud/provided-by": "robot",
  });
  expect(addresses(r)).toContain(`ExternalIP ${dedicated.ip}`);
}, 180_000);

/** Whether Node `name` has a Warning event with `reason` from this manager (hccm's reasons and component). */
const warnedOn = (name: string, reason: string) => () =>
  api.store
    .list<Event>(Resources.events, { namespace: "default" })
    .items.some(
      (e) =>
        e.type === "Warning" &&
        e.reason === reason &&
        e.involvedObject?.kind === "Node" &&
        e.involvedObject.name === name &&
        e.source?.component === "hcloud-cloud-controller-manager",
    );

test("a Robot node's InternalIP of the other family is not forwarded: hccm's MisconfiguredInternalIP Warning event", async () => {
  const current = nodeNamed("robot-1")?.status?.addresses ?? [];
  await client.patch(
    Resources.nodes,
    "robot-1",
    "merge",
    { status: { addresses: [...current, { type: "InternalIP", address: "fd00::5" }] } },
    { subresource: "status" },
  );
  await until("a MisconfiguredInternalIP event on robot-1", warnedOn("robot-1", "MisconfiguredInternalIP"));
  await untilNode("robot-1", "fd00::5 not kept", (n) => !addresses(n).includes("InternalIP fd00::5"));
}, 120_000);

test("a Robot server renamed (reused by another cluster): hccm's PossibleNodeDeletion Warning event", async () => {
  const number = Number(nodeNamed("robot-1")?.spec?.providerID?.replace("hrobot://", ""));
  world.robot.state.updateServer(number, { name: "other-cluster-7" });
  await until("a PossibleNodeDeletion event on robot-1", warnedOn("robot-1", "PossibleNodeDeletion"));
  world.robot.state.updateServer(number, { name: "robot-1" });
  expect(nodeNamed("robot-1")).toBeDefined();
}, 120_000);

test("a powered-off server's NotReady node gets the shutdown taint; powered on again, loses it", async () => {
  const server = [...world.hcloud.world.servers.values()].find((s) => s.name === "cloud-2")!;
  power(world.hcloud.world, server, "poweroff");
  await setNodeReady(client, "cloud-2", "Unknown");
  await untilNode("cloud-2", "shutdown taint", tainted);
  power(world.hcloud.world, server, "poweron");
  await setNodeReady(client, "cloud-2", "True");
  await untilNode("cloud-2", "no shutdown taint", (n) => n !== undefined && !tainted(n));
}, 120_000);

test("a Robot node is kept while Robot is down, though NotReady", async () => {
  world.robot.faults.maintenance = true;
  const failedBefore = world.robot.calls.filter((c) => c.status === 503).length;
  await setNodeReady(client, "robot-1", "Unknown");
  // The lifecycle controller has asked (and Robot failed) several times: time enough to have deleted the node.
  await until(
    "three failed Robot calls",
    () => world.robot.calls.filter((c) => c.status === 503).length >= failedBefore + 3,
  );
  expect(nodeNamed("robot-1")).toBeDefined();
  world.robot.faults.maintenance = false;
  await setNodeReady(client, "robot-1", "True");
}, 120_000);

test("a deleted server's NotReady node is deleted; the other nodes stay", async () => {
  const server = [...world.hcloud.world.servers.values()].find((s) => s.name === "cloud-2")!;
  deleteServer(world.hcloud.world, server);
  await setNodeReady(client, "cloud-2", "Unknown");
  await untilNode("cloud-2", "deleted", (n) => n === undefined);
  expect(nodeNamed("cloud-1")).toBeDefined();
  expect(nodeNamed("robot-1")).toBeDefined();
}, 120_000);

test("routes: one per pod CIDR through the node's private IP; stale ones in the cluster CIDR removed, others kept; a node's goes with it", async () => {
  await client.delete(Resources.nodes, "robot-1");
  const network = world.network;
  const stale = { destination: "10.244.9.0/24", gateway: "10.0.1.200" };
  const operators = { destination: "192.168.50.0/24", gateway: "10.0.1.250" };
  // Placed in the project's state directly: leftovers of an earlier manager, and a route of the operator's.
  network.routes.push(stale, operators);
  const cloud3 = world.addServer("cloud-3");
  await registerNode(client, "cloud-3", "10.244.3.0/24");
  await client.patch(Resources.nodes, "cloud-1", "merge", {
    spec: { podCIDR: "10.244.1.0/24", podCIDRs: ["10.244.1.0/24"] },
  });
  await startManager(world.env());
  const cloud1 = [...world.hcloud.world.servers.values()].find((s) => s.name === "cloud-1")!;
  const want = [
    `${cloud1.private_net[0]!.ip} 10.244.1.0/24`,
    `${cloud3.private_net[0]!.ip} 10.244.3.0/24`,
    "10.0.1.250 192.168.50.0/24",
  ].sort();
  const routes = () => network.routes.map((r) => `${r.gateway} ${r.destination}`).sort();
  await until(`routes ${JSON.stringify(want)}`, () => JSON.stringify(routes()) === JSON.stringify(want));

  // hccm's flags turn on watch-based reconciliation: a Node that goes takes its route with it.
  await client.delete(Resources.nodes, "cloud-3");
  const left = want.filter((r) => !r.endsWith(" 10.244.3.0/24"));
  await until(`routes ${JSON.stringify(left)}`, () => JSON.stringify(routes()) === JSON.stringify(left));
}, 180_000);

test("a LoadBalancer Service gets a load balancer in hccm's shape, its IPs in the status; deleted, the load balancer goes", async () => {
  const svc: Service = {
    metadata: {
      name: "web",
      namespace: "default",
      annotations: { "load-balancer.hetzner.cloud/location": "fsn1" },
    },
    spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
  };
  await client.create(Resources.services, svc, { namespace: "default" });
  const stored = () => {
    try {
      return api.store.get(Resources.services, "web", { namespace: "default" }) as Service;
    } catch {
      return undefined;
    }
  };
  const lbs = () => [...world.hcloud.world.loadBalancers.values()];
  await until("status ingress", () => (stored()?.status?.loadBalancer?.ingress ?? []).length > 0);
  const uid = stored()!.metadata!.uid!;
  expect(lbs().map((l) => l.labels["hcloud-ccm/service-uid"])).toEqual([uid]);
  const lb = lbs()[0]!;
  expect(lb.name).toBe(`a${uid.replaceAll("-", "")}`.slice(0, 32));
  expect(lb.location.name).toBe("fsn1");
  expect(lb.services.map((l) => [l.protocol, l.listen_port])).toEqual([["tcp", 80]]);
  const ips = (stored()!.status!.loadBalancer!.ingress ?? []).map((i) => i.ip);
  expect(ips).toContain(lb.public_net.ipv4.ip);

  await client.delete(Resources.services, "web", { namespace: "default" });
  await until("the load balancer deleted", () => lbs().length === 0);
  await until("the Service gone", () => stored() === undefined);
}, 180_000);

test.each([
  ["a bad boolean", { ROBOT_ENABLED: "maybe" }, "ROBOT_ENABLED"],
  ["no token", { HCLOUD_TOKEN: "" }, "HCLOUD_TOKEN"],
  ["a network that does not exist", { HCLOUD_NETWORK: "k8z" }, "HCLOUD_NETWORK=k8z"],
])(
  "%s: the executable exits non-zero naming the variable",
  async (_, change, variable) => {
    const r = await runExecutable(
      await executable("hcloud"),
      [...(await hcloudManagerCommand(join(dir, "kubeconfig"))).slice(1)],
      { env: world.env(change) },
    );
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(variable);
  },
  120_000,
);

test.each([
  ["passes with hccm's environment", {}, 0, "ok  "],
  ["names HCLOUD_TOKEN when the API refuses it", { HCLOUD_TOKEN: "not-the-token" }, 1, "the API refused HCLOUD_TOKEN"],
  ["names HCLOUD_NETWORK when it does not exist", { HCLOUD_NETWORK: "k8z" }, 1, "HCLOUD_NETWORK=k8z"],
] as const)(
  "doctor %s",
  async (_, change, code, words) => {
    const r = await runExecutable(
      await executable("hcloud"),
      ["doctor", "--cloud-provider=hcloud", "--allow-untagged-cloud", `--kubeconfig=${join(dir, "kubeconfig")}`],
      { env: world.env({ ...change }) },
    );
    expect({ code: r.code, has: (r.stdout + r.stderr).includes(words) }).toEqual({ code, has: true });
    expect(r.stdout + r.stderr).not.toContain("not-the-token");
  },
  120_000,
);

test("the all-in-one takes --cloud-provider=hcloud: its doctor passes on hccm's environment", async () => {
  const r = await runExecutable(
    await executable(),
    ["doctor", "--cloud-provider=hcloud", "--allow-untagged-cloud", `--kubeconfig=${join(dir, "kubeconfig")}`],
    { env: world.env() },
  );
  expect({ code: r.code, out: r.code === 0 ? "" : r.stdout + r.stderr }).toEqual({ code: 0, out: "" });
  expect(r.stdout).toContain('cloud provider "hcloud"');
}, 120_000);

test("sandbox --cloud=hcloud --controllers=false prints a command that, run as printed, makes the sandbox ready", async () => {
  const sandbox = spawnCollecting([
    await executable(),
    "sandbox",
    "--cloud=hcloud",
    "--nodes=2",
    "--controllers=false",
    "--exit-when-ready",
  ]);
  let ccm: RunningProcess | undefined;
  // The executable under the name it prints for itself, as it is installed; nothing else on PATH.
  const bin = await mkdtemp(join(tmpdir(), "ccm-path-"));
  await symlink(await executable(), join(bin, "cloud-controller-manager"));
  try {
    const printed = () => /run the controllers yourself:\n {2}(.+)\n/.exec(sandbox.output())?.[1];
    await poll(() => printed() !== undefined, { message: "the printed command" });
    const line = printed() as string;
    // The same invocation the plain sandbox prints, not a name that is not on PATH.
    expect(line).toMatch(/^HCLOUD_ENDPOINT=\S+ HCLOUD_TOKEN=\S+ .* cloud-controller-manager --cloud-provider=hcloud /);
    ccm = spawnCollecting(["sh", "-c", line], { PATH: `${bin}:/usr/bin:/bin` });
    const code = await Promise.race([sandbox.exited, ccm.exited.then((c) => `ccm exited ${c}`)]);
    const out = sandbox.output();
    expect({ code, tail: code === 0 ? "" : `${out.slice(-2000)}\n${ccm.output().slice(-2000)}` }).toEqual({
      code: 0,
      tail: "",
    });
    for (const n of [1, 2])
      expect(out).toMatch(new RegExp(`node node-${n}: initialised hcloud://\\d+ zone=fsn1-dc14 type=cx22`));
    expect(out).toMatch(/ready: 2 nodes initialised and routed, 1 load balancer\(s\) with an address/);
  } finally {
    // The shell's child first: the manager it started, by its parent's id.
    if (ccm) Bun.spawnSync(["pkill", "-KILL", "-P", String(ccm.proc.pid)]);
    ccm?.proc.kill("SIGKILL");
    sandbox.proc.kill("SIGKILL");
    await rm(bin, { recursive: true, force: true });
  }
}, 180_000);

test("a password in HCLOUD_ENDPOINT is never printed, not even in the line that says why the manager exits", async () => {
  const endpoint = `http://ccm:pa55word@127.0.0.1:${freePort()}/v1`;
  await startManager(world.env({ HCLOUD_ENDPOINT: endpoint }));
  const running = manager as RunningProcess;
  expect(await running.exited).toBe(1);
  const out = running.output();
  const last = out.trimEnd().split("\n").at(-1) ?? "";
  expect(last).toContain("HCLOUD_ENDPOINT=http://ccm:xxxxx@127.0.0.1:");
  expect(out).not.toContain("pa55word");
}, 60_000);
