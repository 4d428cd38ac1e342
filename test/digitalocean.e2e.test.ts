/**
 * End to end: the compiled `digitalocean-cloud-controller-manager`, run with DO CCM's Deployment flags
 * (`--leader-elect=false`) and environment (DO_ACCESS_TOKEN, the firewall's variables), against the API emulator and
 * the DigitalOcean emulator, whose metadata service answers the region as a Droplet's does: Droplet nodes
 * initialised as DO CCM initialises them, the public-access firewall following the Services' node ports, a
 * powered-off Droplet's node tainted, a deleted one's node deleted; bad variables stop the executable naming them;
 * `doctor` proves the token and the region; the all-in-one and `sandbox --cloud=digitalocean` run the same provider.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeClient } from "../kube/client-types.ts";
import { Resources } from "../kube/client-types.ts";
import type { Node, Service } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { type DoEmulator, startDoEmulator } from "../sandbox/digitalocean/server.ts";
import { createDroplet, deleteDroplet } from "../sandbox/digitalocean/state/droplets.ts";
import { startE2eApiServer, stopManager, tearDown } from "./support/apiserver.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { registerNode } from "./support/hcloud.ts";
import { freePort, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";

const token = `dop_v1_${"e2e0".repeat(16)}`;
/** The arguments DO CCM's Deployment passes (releases/digitalocean-cloud-controller-manager/*.yml), verbatim. */
const doCcmFlags = ["--leader-elect=false"];

let api: ApiServer;
let client: KubeClient;
let emulator: DoEmulator;
let dir = "";
let manager: RunningProcess | undefined;
const tail = () => manager?.output().slice(-3000) ?? "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-digitalocean-"));
  emulator = startDoEmulator({ token, lbActiveDelayMs: 0, metadataRegion: "fra1" });
  ({ api, client } = await startE2eApiServer(dir));
}, 60_000);

afterAll(() => tearDown(manager, [api, emulator], dir));

/** DO CCM's environment for the emulator, paced for tests; `extra` adds or replaces variables. */
const env = (extra: Record<string, string> = {}) => ({
  PATH: "/usr/bin:/bin",
  DO_ACCESS_TOKEN: token,
  DO_OVERRIDE_URL: emulator.endpoint,
  DO_METADATA_URL: emulator.metadataUrl,
  PUBLIC_ACCESS_FIREWALL_NAME: "k8s-public-access",
  PUBLIC_ACCESS_FIREWALL_TAGS: "k8s-worker",
  // The emulator answers in milliseconds: pace at 50 a second, not the token budget's 1.25.
  DO_API_RATE_LIMIT_QPS: "50",
  ...extra,
});

const command = async (extra: string[] = []) => [
  await executable("digitalocean"),
  ...doCcmFlags,
  `--kubeconfig=${join(dir, "kubeconfig")}`,
  "--secure-port=0",
  "--node-monitor-period=1s",
  "--node-status-update-frequency=1s",
  ...extra,
];

async function until(what: string, check: () => boolean, timeoutMs = 60_000) {
  await poll(check, { timeoutMs, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${tail()}`);
  });
}

const nodeNamed = (name: string): Node | undefined => {
  try {
    return api.store.get(Resources.nodes, name) as Node;
  } catch {
    return undefined;
  }
};
const untilNode = (name: string, what: string, check: (n: Node | undefined) => boolean) =>
  until(`${name}: ${what}; node: ${JSON.stringify(nodeNamed(name))}`, () => check(nodeNamed(name)));
const initialised = (n: Node | undefined) =>
  n !== undefined && !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const tainted = (n: Node | undefined) => (n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown);
const dropletNamed = (name: string) => [...emulator.world.droplets.values()].find((d) => d.name === name);

/** The inbound rules of the firewall named `name`, as `tcp 30080`, sorted; undefined when there is none. */
const inbound = (name = "k8s-public-access") => {
  const fw = [...emulator.world.firewalls.values()].find((f) => f.spec.name === name);
  return (
    fw &&
    (fw.spec.inbound_rules as { protocol: string; ports: string }[])
      .map((r) => `${r.protocol} ${r.ports}`)
      .sort()
      .join(",")
  );
};

const nodePort = (name: string, port: number, protocol = "TCP"): Service => ({
  metadata: { name, namespace: "default" },
  spec: {
    type: "NodePort",
    selector: { app: name },
    ports: [{ port: 80, targetPort: 8080, nodePort: port, protocol }],
  },
});

test("Droplet nodes initialised with DO CCM's provider IDs, labels and addresses; the region from the metadata service", async () => {
  const one = createDroplet(emulator.world, {
    name: "worker-1",
    region: "fra1",
    size: "s-2vcpu-4gb",
    tags: ["k8s-worker"],
  });
  createDroplet(emulator.world, { name: "worker-2", region: "fra1", tags: ["k8s-worker"] });
  for (const name of ["worker-1", "worker-2"]) await registerNode(client, name);
  manager = spawnCollecting(await command(), env());
  for (const name of ["worker-1", "worker-2"]) await untilNode(name, "initialised", initialised);

  const n = nodeNamed("worker-1")!;
  expect(n.spec?.providerID).toBe(`digitalocean://${one.id}`);
  expect(n.metadata?.labels).toMatchObject({
    "node.kubernetes.io/instance-type": "s-2vcpu-4gb",
    "topology.kubernetes.io/region": "fra1",
  });
  expect(n.metadata?.labels?.["topology.kubernetes.io/zone"]).toBeUndefined();
  await untilNode("worker-1", "addresses", (x) => (x?.status?.addresses ?? []).length === 4);
  expect(nodeNamed("worker-1")?.status?.addresses).toEqual([
    { type: "Hostname", address: "worker-1" },
    { type: "InternalIP", address: one.privateV4 },
    { type: "ExternalIP", address: one.publicV4 },
    { type: "ExternalIP", address: one.publicV6 },
  ]);
  expect(manager.output()).toContain(`region fra1 (from ${emulator.metadataUrl}/metadata/v1/region)`);
}, 180_000);

test("the public-access firewall follows the NodePort Services, and no other firewall is touched", async () => {
  const theirs = {
    name: "someone-else",
    inbound_rules: [{ protocol: "tcp", ports: "22", sources: { addresses: ["0.0.0.0/0"] } }],
  };
  const made = await fetch(`${emulator.endpoint}/v2/firewalls`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(theirs),
  });
  expect(made.status).toBe(202);
  await until("the firewall made with no inbound rule", () => inbound() === "");
  await client.create(Resources.services, nodePort("web", 30080), { namespace: "default" });
  await client.create(Resources.services, nodePort("dns", 30053, "UDP"), { namespace: "default" });
  await until(`tcp 30080 and udp 30053; have ${inbound()}`, () => inbound() === "tcp 30080,udp 30053");
  const fw = [...emulator.world.firewalls.values()].find((f) => f.spec.name === "k8s-public-access")!;
  expect(fw.spec.tags).toEqual(["k8s-worker"]);

  await client.delete(Resources.services, "web", { namespace: "default" });
  await until(`udp 30053 alone; have ${inbound()}`, () => inbound() === "udp 30053");
  expect(inbound("someone-else")).toBe("tcp 22");
  expect([...emulator.world.firewalls.values()].filter((f) => f.spec.name === "k8s-public-access")).toHaveLength(1);
}, 120_000);

test("a powered-off Droplet's NotReady node gets the shutdown taint; powered on again, loses it", async () => {
  const droplet = dropletNamed("worker-2")!;
  droplet.status = "off";
  await setNodeReady(client, "worker-2", "Unknown");
  await untilNode("worker-2", "shutdown taint", tainted);
  droplet.status = "active";
  await setNodeReady(client, "worker-2", "True");
  await untilNode("worker-2", "no shutdown taint", (n) => n !== undefined && !tainted(n));
}, 120_000);

test("a deleted Droplet's NotReady node is deleted; the other stays", async () => {
  deleteDroplet(emulator.world, dropletNamed("worker-2")!.id);
  await setNodeReady(client, "worker-2", "Unknown");
  await untilNode("worker-2", "deleted", (n) => n === undefined);
  expect(nodeNamed("worker-1")).toBeDefined();
  await stopManager(manager, "SIGTERM");
}, 120_000);

test.each([
  ["no token", { DO_ACCESS_TOKEN: "" }, "DO_ACCESS_TOKEN"],
  ["a bad rate", { DO_API_RATE_LIMIT_QPS: "fast" }, "DO_API_RATE_LIMIT_QPS"],
  ["a firewall name without tags", { PUBLIC_ACCESS_FIREWALL_TAGS: "" }, "PUBLIC_ACCESS_FIREWALL_TAGS"],
  ["a refused token", { DO_ACCESS_TOKEN: "not-the-token" }, "the API refused DO_ACCESS_TOKEN"],
  ["a region the account lacks", { REGION: "xyz9" }, "REGION=xyz9"],
  ["no REGION and no metadata service", { DO_METADATA_URL: `http://127.0.0.1:${freePort()}` }, "set REGION"],
])(
  "%s: the executable exits non-zero naming the variable",
  async (_, change, words) => {
    const [bin, ...args] = await command();
    const r = await runExecutable(bin as string, args, { env: env(change) });
    expect({ code: r.code === 0 ? 0 : "non-zero", has: (r.stdout + r.stderr).includes(words) }).toEqual({
      code: "non-zero",
      has: true,
    });
    expect(r.stdout + r.stderr).not.toContain("not-the-token");
  },
  120_000,
);

test.each([
  ["passes with DO CCM's environment", {}, 0, "ok  "],
  [
    "names DO_ACCESS_TOKEN when the API refuses it",
    { DO_ACCESS_TOKEN: "not-the-token" },
    1,
    "the API refused DO_ACCESS_TOKEN",
  ],
  ["names REGION when the account has no such region", { REGION: "xyz9" }, 1, "REGION=xyz9 is not a region"],
  [
    "says to set REGION without a metadata service",
    { DO_METADATA_URL: `http://127.0.0.1:${freePort()}` },
    1,
    "set REGION",
  ],
] as const)(
  "doctor %s",
  async (_, change, code, words) => {
    const r = await runExecutable(
      await executable("digitalocean"),
      ["doctor", `--kubeconfig=${join(dir, "kubeconfig")}`],
      {
        env: env({ ...change }),
      },
    );
    expect({ code: r.code, has: (r.stdout + r.stderr).includes(words) }).toEqual({ code, has: true });
    expect(r.stdout + r.stderr).not.toContain("not-the-token");
  },
  120_000,
);

test("the all-in-one takes --cloud-provider=digitalocean: its doctor passes on DO CCM's environment", async () => {
  const r = await runExecutable(
    await executable(),
    ["doctor", "--cloud-provider=digitalocean", `--kubeconfig=${join(dir, "kubeconfig")}`],
    { env: env() },
  );
  expect({ code: r.code, out: r.code === 0 ? "" : r.stdout + r.stderr }).toEqual({ code: 0, out: "" });
  expect(r.stdout).toContain('cloud provider "digitalocean"');
}, 120_000);

test("sandbox --cloud=digitalocean --controllers=false prints a command that, run as printed, makes the sandbox ready", async () => {
  const sandbox = spawnCollecting([
    await executable(),
    "sandbox",
    "--cloud=digitalocean",
    "--nodes=2",
    "--services=0",
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
    expect(line).toMatch(
      /^DO_ACCESS_TOKEN=\S+ DO_OVERRIDE_URL=\S+ .* cloud-controller-manager --cloud-provider=digitalocean /,
    );
    ccm = spawnCollecting(["sh", "-c", line], { PATH: `${bin}:/usr/bin:/bin` });
    const code = await Promise.race([sandbox.exited, ccm.exited.then((c) => `ccm exited ${c}`)]);
    const out = sandbox.output();
    expect({ code, tail: code === 0 ? "" : `${out.slice(-2000)}\n${ccm.output().slice(-2000)}` }).toEqual({
      code: 0,
      tail: "",
    });
    for (const n of [1, 2])
      expect(out).toMatch(new RegExp(`node node-${n}: initialised digitalocean://\\d+ zone=\\? type=s-2vcpu-4gb`));
  } finally {
    // The shell's child first: the manager it started, by its parent's id.
    if (ccm) Bun.spawnSync(["pkill", "-KILL", "-P", String(ccm.proc.pid)]);
    ccm?.proc.kill("SIGKILL");
    sandbox.proc.kill("SIGKILL");
    await rm(bin, { recursive: true, force: true });
  }
}, 180_000);
