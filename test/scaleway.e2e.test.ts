/**
 * End to end: the compiled `scaleway-cloud-controller-manager` against the API emulator and the Scaleway emulator,
 * with scw CCM's environment (the secret key from a file, the rest from the environment and the cloud-config).
 * An Instance on a private network and an Elastic Metal server are initialised with scw CCM's provider IDs, labels
 * and addresses; a stopped Instance's NotReady node is tainted; while the API fails, a NotReady node whose server
 * is gone stays; once it answers, the node is deleted. `doctor` proves the keys and the project. The all-in-one's
 * `sandbox --cloud=scaleway` runs a command that plans and then initialises its servers, and composes with metal as
 * docs/composing-providers.md shows.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Node, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { Taints } from "../kube/well-known.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { type ScalewayEmulator, startScalewayEmulator } from "../sandbox/scaleway/server.ts";
import type { BaremetalServer } from "../sandbox/scaleway/state/baremetal.ts";
import { createBaremetalServer } from "../sandbox/scaleway/state/baremetal.ts";
import { createInstanceServer, type InstanceServer } from "../sandbox/scaleway/state/instance.ts";
import { ACCESS_KEY, PRIVATE_NETWORK, SECRET_KEY } from "../sandbox/scaleway/testing.ts";
import { startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";
import { runSandboxPrintedCommand } from "./support/sandbox-cloud.ts";

let api: ApiServer;
let client: KubeClient;
let scw: ScalewayEmulator;
let dir = "";
let manager: RunningProcess | undefined;
let files: { kubeconfig: string; cloudConfig: string };
let env: Record<string, string>;
let instance: InstanceServer;
let metal: BaremetalServer;
const tail = () => manager?.output().slice(-3000) ?? "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-scaleway-"));
  scw = startScalewayEmulator({ secretKey: SECRET_KEY });
  ({ api, client } = await startE2eApiServer(dir));
  files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "scaleway.yaml") };
  await writeFile(join(dir, "secret-key"), `${SECRET_KEY}\n`, { mode: 0o600 });
  await writeFile(files.cloudConfig, "SCW_DEFAULT_REGION: fr-par\nSCW_DEFAULT_ZONE: fr-par-2\n", { mode: 0o600 });
  env = {
    SCW_ACCESS_KEY: ACCESS_KEY,
    SCW_SECRET_KEY_FILE: join(dir, "secret-key"),
    SCW_DEFAULT_PROJECT_ID: scw.world.defaultProject.id,
    SCW_API_URL: scw.endpoint,
    PN_ID: PRIVATE_NETWORK,
    DISABLE_TAGS_SYNC: "true",
  };
  instance = createInstanceServer(scw.world, {
    name: "node-1",
    zone: "fr-par-2",
    commercial_type: "PRO2-S",
    private_networks: [PRIVATE_NETWORK],
  });
  metal = createBaremetalServer(scw.world, { name: "metal-1", zone: "fr-par-2", offer_name: "EM-A115X-SSD" });
  for (const name of ["node-1", "metal-1"]) await register(name);
  // scw CCM's own flags (its examples/k8s-scaleway-ccm-latest.yml), then the e2e tests' short periods.
  const flags = [
    "--cloud-provider=scaleway",
    "--allow-untagged-cloud",
    "--controllers=cloud-node,cloud-node-lifecycle",
    "--node-status-update-frequency=1s",
  ];
  manager = spawnCollecting(await managerCommand(files, flags, { provider: "scaleway", clusterCIDR: "" }), env);
}, 240_000);

afterAll(() => tearDown(manager, [api, scw], dir));

async function register(name: string): Promise<void> {
  await client.create(Resources.nodes, {
    metadata: { name },
    spec: { taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }] },
  } satisfies Node);
  await setNodeReady(client, name, "True");
}

const nodeNamed = (name: string): Node | undefined => {
  try {
    return api.store.get(Resources.nodes, name) as Node;
  } catch {
    return undefined;
  }
};

async function until(what: string, check: (n: Node | undefined) => boolean, name: string, timeoutMs = 60_000) {
  await poll(() => check(nodeNamed(name)), { timeoutMs, message: `${name}: ${what}` }).catch((err) => {
    throw new Error(`${(err as Error).message}\nnode: ${JSON.stringify(nodeNamed(name))}\nmanager said:\n${tail()}`);
  });
}

const initialised = (n: Node | undefined) =>
  n !== undefined && !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const addresses = (n: Node | undefined) => (n?.status?.addresses ?? []).map((a) => `${a.type} ${a.address}`);

test("an Instance and an Elastic Metal server are initialised with scw CCM's provider IDs, labels and addresses", async () => {
  await until("initialised", initialised, "node-1", 120_000);
  await until("initialised", initialised, "metal-1", 120_000);
  const n1 = nodeNamed("node-1")!;
  expect(n1.spec?.providerID).toBe(`scaleway://instance/fr-par-2/${instance.id}`);
  expect(n1.metadata?.labels).toMatchObject({
    "node.kubernetes.io/instance-type": "PRO2-S",
    "topology.kubernetes.io/zone": "fr-par-2",
    "topology.kubernetes.io/region": "fr-par",
  });
  const nic = instance.privateNics[0]?.id;
  const privateIp = [...scw.world.ips.values()].find((ip) => ip.resource?.id === nic && !ip.isIpv6);
  await until(
    "addresses",
    (n) =>
      addresses(n).join() ===
      [
        "Hostname node-1",
        `ExternalIP ${instance.publicIps[0]?.address}`,
        `ExternalDNS ${instance.id}.pub.instances.scw.cloud`,
        `InternalIP ${privateIp?.address.replace(/\/\d+$/, "")}`,
      ].join(),
    "node-1",
  );

  const m1 = nodeNamed("metal-1")!;
  expect(m1.spec?.providerID).toBe(`scaleway://baremetal/fr-par-2/${metal.id}`);
  expect(m1.metadata?.labels).toMatchObject({
    "node.kubernetes.io/instance-type": "EM-A115X-SSD",
    "topology.kubernetes.io/zone": "fr-par-2",
  });
  expect(addresses(m1)).toContain(`ExternalIP ${metal.ips[0]?.address}`);
}, 180_000);

test("a stopped Instance's NotReady node gets the shutdown taint; running again, loses it", async () => {
  instance.state = "stopped";
  await setNodeReady(client, "node-1", "Unknown");
  await until("shutdown taint", (n) => (n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown), "node-1");
  instance.state = "running";
  await setNodeReady(client, "node-1", "True");
  await until("no shutdown taint", (n) => !(n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown), "node-1");
}, 120_000);

test("while the API fails, a NotReady node whose server is gone stays; once it answers, the node is deleted", async () => {
  scw.faults.set({
    latencyMs: 0,
    errorRate: 0,
    failNext: [{ pathPrefix: "/baremetal", type: "service_unavailable", count: 1_000_000 }],
  });
  scw.world.baremetal.delete(metal.id);
  await setNodeReady(client, "metal-1", "Unknown");
  const failed = () =>
    Object.entries(scw.calls.snapshot().byRoute)
      .filter(([route]) => route.startsWith("GET /baremetal/"))
      .reduce((sum, [, stats]) => sum + stats.failed, 0);
  const before = failed();
  await poll(() => failed() >= before + 3, {
    timeoutMs: 120_000,
    message: "three failed reads of Elastic Metal servers",
  }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${tail()}`);
  });
  expect(nodeNamed("metal-1")).toBeDefined();

  scw.faults.set({ latencyMs: 0, errorRate: 0, failNext: [] });
  await until("deleted", (n) => n === undefined, "metal-1", 120_000);
  expect(nodeNamed("node-1")).toBeDefined();
}, 240_000);

test("doctor proves the keys and the project, and names SCW_SECRET_KEY when the key is refused", async () => {
  const [path = ""] = await managerCommand(files, [], { provider: "scaleway", clusterCIDR: "" });
  const args = ["doctor", `--cloud-config=${files.cloudConfig}`, `--kubeconfig=${files.kubeconfig}`];
  const ok = await runExecutable(path, args, { env: { PATH: "/usr/bin:/bin", ...env } });
  expect({ code: ok.code, stdout: ok.stdout }).toMatchObject({ code: 0 });

  await writeFile(join(dir, "wrong-key"), "00000000-0000-4000-8000-00000000dead\n", { mode: 0o600 });
  const refused = await runExecutable(path, args, {
    env: { PATH: "/usr/bin:/bin", ...env, SCW_SECRET_KEY_FILE: join(dir, "wrong-key") },
  });
  expect(refused.code).toBe(1);
  expect(refused.stdout).toContain("SCW_SECRET_KEY");
  expect(refused.stdout).not.toContain("00000000-0000-4000-8000-00000000dead");
}, 120_000);

test("sandbox --cloud=scaleway --controllers=false prints a command that plans, then, run as printed, initialises its Instances and Elastic Metal servers", async () => {
  const out = await runSandboxPrintedCommand("scaleway", {
    nodes: 3,
    plan: /Node node-3\n {2}~ initialize [^\n]*\n {6}spec\.providerID scaleway:\/\/baremetal\/fr-par-2\/[\s\S]*Nothing was written\./,
    printed:
      /^SCW_ACCESS_KEY=SCW\w{17} SCW_SECRET_KEY=\S+ .*SCW_API_URL=\S+ .* cloud-controller-manager --cloud-provider=scaleway /,
  });
  for (const n of [1, 2])
    expect(out).toMatch(
      new RegExp(`node node-${n}: initialised scaleway://instance/fr-par-2/[0-9a-f-]{36} zone=fr-par-2 type=PRO2-S`),
    );
  expect(out).toMatch(
    /node node-3: initialised scaleway:\/\/baremetal\/fr-par-2\/[0-9a-f-]{36} zone=fr-par-2 type=EM-A115X-SSD/,
  );
}, 180_000);

test("composed with metal (docs/composing-providers.md): Instances, Elastic Metal and a rack each initialised by their own provider, metal's pool serving the Service", async () => {
  const at = await mkdtemp(join(tmpdir(), "ccm-scw-composite-"));
  const sandbox = spawnCollecting([
    await executable(),
    "sandbox",
    "--cloud=scaleway",
    "--nodes=3",
    "--services=0",
    "--controllers=false",
    `--dir=${at}`,
  ]);
  let composite: RunningProcess | undefined;
  try {
    await poll(() => /^stop it: /m.test(sandbox.output()), { message: `the sandbox ready:\n${sandbox.output()}` });
    await writeFile(
      join(at, "composite.yaml"),
      [
        "providers:",
        "  - name: scaleway",
        "  - name: metal",
        "    config:",
        "      inventory:",
        "        machines:",
        "          - { name: rack-1, providerID: metal://rack-1, addresses: { InternalIP: 10.1.0.1 }, zone: rack-a, region: lab }",
        "      loadBalancer:",
        "        global: { addresses: [192.0.2.0/28] }",
        "loadBalancer: metal",
        "",
      ].join("\n"),
    );
    const kube = createKubeClient(loadTransport({ kubeconfig: join(at, "kubeconfig") }), {
      qps: 0,
      burst: 0,
      userAgent: "e2e",
    });
    await kube.create(Resources.nodes, {
      metadata: { name: "rack-1" },
      spec: { taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }] },
    } satisfies Node);
    await kube.create(
      Resources.services,
      {
        metadata: { name: "hello", namespace: "default" },
        spec: { type: "LoadBalancer", selector: { app: "hello" }, ports: [{ port: 80, targetPort: 8080 }] },
      } satisfies Service,
      { namespace: "default" },
    );
    const scwEnv = Object.fromEntries(
      (await readFile(join(at, "scaleway.env"), "utf8"))
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    composite = spawnCollecting(
      [
        await executable(),
        "--cloud-provider=composite",
        `--cloud-config=${join(at, "composite.yaml")}`,
        `--kubeconfig=${join(at, "kubeconfig")}`,
        "--allow-untagged-cloud",
        "--leader-elect=false",
        "--secure-port=0",
      ],
      scwEnv,
    );
    const providerIDs = async () =>
      Object.fromEntries(
        (await kube.list<Node>(Resources.nodes)).items.map((n) => [n.metadata?.name, n.spec?.providerID ?? ""]),
      );
    await poll(async () => Object.values(await providerIDs()).filter((id) => id !== "").length === 4, {
      timeoutMs: 60_000,
      message: `every Node with a provider ID; manager said:\n${composite.output().slice(-3000)}`,
    });
    const ids = await providerIDs();
    expect(ids).toEqual({
      "node-1": expect.stringMatching(/^scaleway:\/\/instance\/fr-par-2\//),
      "node-2": expect.stringMatching(/^scaleway:\/\/instance\/fr-par-2\//),
      "node-3": expect.stringMatching(/^scaleway:\/\/baremetal\/fr-par-2\//),
      "rack-1": "metal://rack-1",
    });
    const ingress = async () =>
      (await kube.get<Service>(Resources.services, "hello", { namespace: "default" })).status?.loadBalancer?.ingress;
    await poll(async () => (await ingress())?.[0]?.ip === "192.0.2.1", {
      timeoutMs: 60_000,
      message: `hello at 192.0.2.1; manager said:\n${composite.output().slice(-3000)}`,
    });
  } finally {
    composite?.proc.kill("SIGKILL");
    sandbox.proc.kill("SIGKILL");
    await sandbox.exited;
    await rm(at, { recursive: true, force: true });
  }
}, 180_000);
